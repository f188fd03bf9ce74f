# torch: RuntimeError: function ScaleGradBackward returned an incorrect number of gradients (expected 2, got 1)
# forward takes a scale with a default; the call site passes it, so autograd expects a
# gradient (None) for it too. The backward returns a local computed from the gradient.
import torch


class ScaleGrad(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, scale=1.0):
        ctx.scale = scale
        return x.view_as(x)

    @staticmethod
    def backward(ctx, grad_output):
        grad_input = grad_output.clone() * ctx.scale
        return grad_input  # expect: GL304


def scaled(features, scale):
    return ScaleGrad.apply(features, scale)


features = torch.randn(4, 3, requires_grad=True)
scaled(features, 0.5).sum().backward()
