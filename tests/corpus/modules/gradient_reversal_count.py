# torch: RuntimeError: function GradReverseBackward returned an incorrect number of gradients (expected 2, got 1)
# Modelled on domain-adaptation (DANN) gradient reversal layers that forget the `None`
# gradient for the non-tensor coefficient.
import torch
import torch.nn as nn


class GradReverse(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, lambd):
        ctx.lambd = lambd
        return x.view_as(x)

    @staticmethod
    def backward(ctx, grad_output):
        return (grad_output.neg() * ctx.lambd)  # expect: GL304


class DomainClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, features, lambd=1.0):
        return self.fc(GradReverse.apply(features, lambd))


features = torch.randn(3, 4, requires_grad=True)
DomainClassifier()(features).sum().backward()
