# A training script wraps activations in an identity Function (custom backward that
# clips gradients) and then clamps the returned tensor in place.
import torch


class ClipGrad(torch.autograd.Function):
    @staticmethod
    def forward(ctx, h):
        return h

    @staticmethod
    def backward(ctx, grad):
        return grad.clamp(-1.0, 1.0)


layer = torch.nn.Linear(3, 3)
x = torch.randn(6, 3)
for step in range(2):
    h = ClipGrad.apply(layer(x))
    h.clamp_(min=0.0)  # expect: GL103
    h.sum().backward()
