# Custom Functions whose outputs are new tensors (clone, round): editing them in place is
# fine; so is editing the output of a Function whose input needs no grad.
import torch


class RoundSTE(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return torch.round(x)

    @staticmethod
    def backward(ctx, grad):
        return grad


class GradReverse(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x.clone()

    @staticmethod
    def backward(ctx, grad):
        return -grad


layer = torch.nn.Linear(3, 3)
x = torch.randn(6, 3)
q = RoundSTE.apply(layer(x))
q.clamp_(-2.0, 2.0)
r = GradReverse.apply(layer(x))
r.mul_(0.5)
(q.sum() + r.sum()).backward()

plain = GradReverse.apply(torch.randn(3))
plain.add_(1.0)
