# torch: ok
# The same flag left at its default (one input: one gradient), and passed with its None.
import torch


class Clip(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, limit=1.0):
        ctx.limit = limit
        return x.clamp(-limit, limit)

    @staticmethod
    def backward(ctx, grad_output):
        grad_input = grad_output.clone()
        return grad_input


class ClipWithLimit(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, limit):
        return x.clamp(-limit, limit)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output, None, None


x = torch.randn(4, requires_grad=True)
Clip.apply(x).sum().backward()
ClipWithLimit.apply(x, 0.5).sum().backward()
