# torch: TypeError: save_for_backward can only save variables, but argument 1 is of type float
# A clipping function saving its bound (a Python float from .item()) with the tensors.
import torch


class ClipGrad(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        bound = x.abs().max().item()
        ctx.save_for_backward(x, bound)  # expect: GL304
        return x / bound

    @staticmethod
    def backward(ctx, grad_output):
        x, bound = ctx.saved_tensors
        return grad_output / bound


ClipGrad.apply(torch.randn(5, requires_grad=True))
