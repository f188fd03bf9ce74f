# source: https://github.com/ShusenTang/Dive-into-DL-PyTorch/issues/126
# expect: clean
import torch
import torch.nn as nn


class QuadraticNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.tensor([3.0]))

    def forward(self, x):
        return (self.w**2 * x).sum()


def max_norm_(param, max_norm=1.0):
    with torch.no_grad():
        norm = param.norm()
        if norm > max_norm:
            param *= max_norm / norm


def grad_after_step():
    net = QuadraticNet()
    loss = net(torch.ones(1))
    loss.backward()
    grad = net.w.grad.clone()
    max_norm_(net.w)
    return grad


right = QuadraticNet()
right(torch.ones(1)).backward()
assert torch.allclose(grad_after_step(), right.w.grad)
