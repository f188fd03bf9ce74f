# source: https://github.com/dragen1860/MAML-Pytorch/issues/40
# expect: element 0 of tensors does not require grad and does not have a grad_fn
# buggy-line: 54
# mechanism: with update_step == 1 the loop of later steps never runs, so the query loss used is the one computed under torch.no_grad()
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import optim


class Meta(nn.Module):
    def __init__(self, update_lr=0.4, meta_lr=1e-3, update_step=1):
        super().__init__()
        self.update_lr = update_lr
        self.update_step = update_step
        self.net = nn.Linear(5, 3)
        self.meta_optim = optim.Adam(self.net.parameters(), lr=meta_lr)

    def functional(self, x, weights):
        return F.linear(x, weights[0], weights[1])

    def forward(self, x_spt, y_spt, x_qry, y_qry):
        task_num = x_spt.size(0)
        losses_q = [0 for _ in range(self.update_step + 1)]
        for i in range(task_num):
            logits = self.functional(x_spt[i], list(self.net.parameters()))
            loss = F.cross_entropy(logits, y_spt[i])
            grad = torch.autograd.grad(loss, self.net.parameters())
            fast_weights = list(map(lambda p: p[1] - self.update_lr * p[0], zip(grad, self.net.parameters())))

            # this is the loss and accuracy before first update
            with torch.no_grad():
                logits_q = self.functional(x_qry[i], list(self.net.parameters()))
                loss_q = F.cross_entropy(logits_q, y_qry[i])
                losses_q[0] += loss_q

            # this is the loss and accuracy after the first update
            with torch.no_grad():
                logits_q = self.functional(x_qry[i], fast_weights)
                loss_q = F.cross_entropy(logits_q, y_qry[i])
                losses_q[1] += loss_q

            for k in range(1, self.update_step):
                logits = self.functional(x_spt[i], fast_weights)
                loss = F.cross_entropy(logits, y_spt[i])
                grad = torch.autograd.grad(loss, fast_weights)
                fast_weights = list(map(lambda p: p[1] - self.update_lr * p[0], zip(grad, fast_weights)))
                logits_q = self.functional(x_qry[i], fast_weights)
                loss_q = F.cross_entropy(logits_q, y_qry[i])
                losses_q[k + 1] += loss_q

        loss_q = losses_q[-1] / task_num
        self.meta_optim.zero_grad()
        loss_q.backward()
        self.meta_optim.step()
        return loss_q.item()


maml = Meta(update_step=1)
x_spt, y_spt = torch.randn(2, 4, 5), torch.randint(0, 3, (2, 4))
x_qry, y_qry = torch.randn(2, 6, 5), torch.randint(0, 3, (2, 6))
maml(x_spt, y_spt, x_qry, y_qry)
