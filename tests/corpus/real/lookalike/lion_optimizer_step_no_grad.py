# source: https://github.com/lucidrains/lion-pytorch/blob/main/lion_pytorch/lion_pytorch.py
# expect: clean
# note: a custom optimizer edits each parameter in place inside a `@torch.no_grad()` step
import torch
from torch.optim.optimizer import Optimizer


def exists(val):
    return val is not None


def update_fn(p, grad, exp_avg, lr, wd, beta1, beta2):
    p.data.mul_(1.0 - lr * wd)
    update = exp_avg.clone().mul_(beta1).add(grad, alpha=1.0 - beta1).sign_()
    p.add_(update, alpha=-lr)
    exp_avg.mul_(beta2).add_(grad, alpha=1.0 - beta2)


class Lion(Optimizer):
    def __init__(self, params, lr=1e-4, betas=(0.9, 0.99), weight_decay=0.0):
        assert lr > 0.0
        defaults = dict(lr=lr, betas=betas, weight_decay=weight_decay)
        super().__init__(params, defaults)
        self.update_fn = update_fn

    @torch.no_grad()
    def step(self, closure=None):
        loss = None
        if exists(closure):
            with torch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            for p in filter(lambda p: exists(p.grad), group["params"]):
                grad, lr, wd, beta1, beta2, state = p.grad, group["lr"], group["weight_decay"], *group["betas"], self.state[p]
                if len(state) == 0:
                    state["exp_avg"] = torch.zeros_like(p)
                exp_avg = state["exp_avg"]
                self.update_fn(p, grad, exp_avg, lr, wd, beta1, beta2)
        return loss


model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.GELU(), torch.nn.Linear(8, 1))
opt = Lion(model.parameters(), lr=1e-4, weight_decay=1e-2)
for _ in range(2):
    loss = model(torch.randn(3, 4)).pow(2).mean()
    loss.backward()
    opt.step()
    opt.zero_grad()
