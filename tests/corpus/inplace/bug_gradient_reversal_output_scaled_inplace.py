# A domain-adaptation model passes features through a gradient-reversal Function whose
# forward returns `x.view_as(x)`, then scales the result in place.
import torch
import torch.nn as nn


class GradReverse(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, lambd):
        ctx.lambd = lambd
        return x.view_as(x)

    @staticmethod
    def backward(ctx, grad_output):
        return -ctx.lambd * grad_output, None


class DomainHead(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.fc = nn.Linear(dim, 2)

    def forward(self, features, lambd=1.0, temperature=2.0):
        reversed_features = GradReverse.apply(features, lambd)
        reversed_features /= temperature  # expect: GL103
        return self.fc(reversed_features)


encoder = nn.Linear(5, 8)
head = DomainHead()
head(encoder(torch.randn(4, 5))).sum().backward()
