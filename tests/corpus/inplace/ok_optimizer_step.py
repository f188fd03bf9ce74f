# An Optimizer subclass: step() updates parameters in place.
import torch
import torch.nn as nn
from torch.optim import Optimizer


class PlainSGD(Optimizer):
    def __init__(self, params, lr):
        super().__init__(params, {"lr": lr})

    @torch.no_grad()
    def step(self, closure=None):
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    p.add_(p.grad, alpha=-group["lr"])


model = nn.Linear(4, 1)
opt = PlainSGD(model.parameters(), lr=0.1)
model(torch.randn(3, 4)).sum().backward()
opt.step()
