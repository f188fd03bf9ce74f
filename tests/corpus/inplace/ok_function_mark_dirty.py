# A custom Function that edits its input in place and marks it dirty.
import torch


class InplaceDouble(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.mark_dirty(x)
        x.mul_(2)
        return x

    @staticmethod
    def backward(ctx, grad):
        return grad * 2


leaf = torch.ones(3, requires_grad=True)
out = InplaceDouble.apply(leaf * 1)
out.sum().backward()
assert torch.equal(leaf.grad, torch.full((3,), 2.0))
