# torch: ok
# Correct custom functions: static methods, ctx, one gradient per input, setup_context.
import torch


class MulConstant(torch.autograd.Function):
    @staticmethod
    def forward(ctx, tensor, constant):
        ctx.constant = constant
        return tensor * constant

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * ctx.constant, None


class LinearFn(torch.autograd.Function):
    @staticmethod
    def forward(x, weight):
        return x @ weight

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(*inputs)

    @staticmethod
    def backward(ctx, grad_output):
        x, weight = ctx.saved_tensors
        grad_x = grad_w = None
        if ctx.needs_input_grad[0]:
            grad_x = grad_output @ weight.t()
        if ctx.needs_input_grad[1]:
            grad_w = x.t() @ grad_output
        return grad_x, grad_w


class Clip(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, bound=1.0):
        ctx.save_for_backward(x, None)
        ctx.bound = bound
        return x.clamp(-bound, bound)

    @staticmethod
    def backward(ctx, grad_output):
        x, _ = ctx.saved_tensors
        return grad_output * (x.abs() <= ctx.bound)


x = torch.randn(3, 3, requires_grad=True)
w = torch.randn(3, 3, requires_grad=True)
(MulConstant.apply(x, 2.0).sum() + LinearFn.apply(x, w).sum() + Clip.apply(x).sum()).backward()
assert x.grad is not None and w.grad is not None
