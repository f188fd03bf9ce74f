# source: https://github.com/dropreg/R-Drop/issues/8
# expect: Trying to backward through the graph a second time
# buggy-line: 60
# also-line: 47
# mechanism: the criterion's forward_reg already runs optimizer.backward(loss); the task's train_step then backpropagates the same loss again
import torch
import torch.nn as nn
import torch.nn.functional as F


class FairseqOptimizer:
    def __init__(self, params, lr):
        self.optimizer = torch.optim.Adam(params, lr=lr)

    def backward(self, loss):
        """Computes the sum of gradients of the given tensor w.r.t. graph leaves."""
        loss.backward()

    def step(self):
        self.optimizer.step()

    def zero_grad(self):
        self.optimizer.zero_grad()


class RegLabelSmoothedCrossEntropyCriterion(nn.Module):
    def __init__(self, eps=0.1):
        super().__init__()
        self.eps = eps

    def compute_kl_loss(self, net_output, pad_mask=None):
        p, q = torch.split(net_output, net_output.size(0) // 2, dim=0)
        p_loss = F.kl_div(F.log_softmax(p, dim=-1), F.softmax(q, dim=-1), reduction="sum")
        q_loss = F.kl_div(F.log_softmax(q, dim=-1), F.softmax(p, dim=-1), reduction="sum")
        return (p_loss + q_loss) / 2

    def forward_reg(self, model, sample, optimizer, reg_alpha, ignore_grad):
        sample_input = sample["net_input"]
        sample_concat_input = torch.cat([sample_input, sample_input.clone()], 0)
        net_output = model(sample_concat_input)
        target = torch.cat([sample["target"], sample["target"].clone()], 0)
        loss = F.cross_entropy(net_output, target, label_smoothing=self.eps)
        loss += reg_alpha * self.compute_kl_loss(net_output)
        if ignore_grad:
            loss *= 0
        else:
            optimizer.backward(loss)
        sample_size = target.size(0)
        return loss, sample_size, {"loss": loss.item()}


class RDropTranslationTask:
    def train_step(self, sample, model, criterion, optimizer, update_num, ignore_grad=False):
        model.train()
        with torch.autograd.profiler.record_function("forward"):
            loss, sample_size, logging_output = criterion.forward_reg(model, sample, optimizer, 0.7, ignore_grad)
        if ignore_grad:
            loss *= 0
        with torch.autograd.profiler.record_function("backward"):
            optimizer.backward(loss)
        return loss, sample_size, logging_output


model = nn.Sequential(nn.Linear(6, 8), nn.Dropout(0.3), nn.Linear(8, 5))
criterion = RegLabelSmoothedCrossEntropyCriterion()
optimizer = FairseqOptimizer(model.parameters(), lr=1e-3)
task = RDropTranslationTask()
sample = {"net_input": torch.randn(4, 6), "target": torch.randint(0, 5, (4,))}
optimizer.zero_grad()
task.train_step(sample, model, criterion, optimizer, update_num=0)
optimizer.step()
