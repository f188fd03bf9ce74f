# source: https://github.com/davda54/sam/issues/10
# expect: Trying to backward through the graph a second time
# buggy-line: 94
# also-line: 91
# mechanism: the second SAM pass keeps adding task losses onto `loss` from the first pass, so its backward walks the first pass's freed graph
import torch
import torch.nn as nn
import torch.nn.functional as F


class SAM(torch.optim.Optimizer):
    def __init__(self, params, base_optimizer, rho=0.05, **kwargs):
        defaults = dict(rho=rho, **kwargs)
        super(SAM, self).__init__(params, defaults)
        self.base_optimizer = base_optimizer(self.param_groups, **kwargs)
        self.param_groups = self.base_optimizer.param_groups

    @torch.no_grad()
    def first_step(self, zero_grad=False):
        grad_norm = self._grad_norm()
        for group in self.param_groups:
            scale = group["rho"] / (grad_norm + 1e-12)
            for p in group["params"]:
                if p.grad is None:
                    continue
                e_w = p.grad * scale.to(p)
                p.add_(e_w)
                self.state[p]["e_w"] = e_w
        if zero_grad:
            self.zero_grad()

    @torch.no_grad()
    def second_step(self, zero_grad=False):
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                p.sub_(self.state[p]["e_w"])
        self.base_optimizer.step()
        if zero_grad:
            self.zero_grad()

    def _grad_norm(self):
        return torch.norm(
            torch.stack([p.grad.norm(p=2) for group in self.param_groups for p in group["params"] if p.grad is not None]),
            p=2,
        )


class MultiTaskNet(nn.Module):
    def __init__(self, num_tasks):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(6, 8), nn.ReLU())
        self.heads = nn.ModuleList([nn.Linear(8, 1) for _ in range(num_tasks)])

    def forward(self, x):
        feat = self.backbone(x)
        return [head(feat) for head in self.heads], feat


def get_loss(output, target, index, device, cfg):
    loss = F.binary_cross_entropy_with_logits(output[index].squeeze(1), target[:, index])
    acc = ((output[index].squeeze(1) > 0).float() == target[:, index]).float().mean()
    return loss, acc


cfg = {"lr": 0.1}
device = torch.device("cpu")
num_tasks = 3
model = MultiTaskNet(num_tasks)
optimizer = SAM(model.parameters(), torch.optim.SGD, lr=cfg["lr"], momentum=0.9)
loss_sum = [0.0] * num_tasks
acc_sum = [0.0] * num_tasks
for image, target in [(torch.randn(4, 6), (torch.rand(4, num_tasks) > 0.5).float()) for _ in range(2)]:
    output, logit_map = model(image)

    loss = 0
    for t in range(num_tasks):
        loss_t, acc_t = get_loss(output, target, t, device, cfg)
        loss += loss_t
        loss_sum[t] += loss_t.item()
        acc_sum[t] += acc_t.item()

    optimizer.zero_grad()
    loss.backward()
    optimizer.first_step(zero_grad=True)
    output, logit_map = model(image)

    for t in range(num_tasks):
        loss_t, acc_t = get_loss(output, target, t, device, cfg)
        loss += loss_t
        loss_sum[t] += loss_t.item()
        acc_sum[t] += acc_t.item()
    loss.backward()
    optimizer.second_step(zero_grad=True)
