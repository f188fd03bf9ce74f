# torch: AssertionError: the layers built in forward are not parameters of the model
# Layers (and a Parameter) built inside forward: new, untrained weights on every call,
# invisible to model.parameters(); a helper method called from forward does the same.
import torch
import torch.nn as nn


class Head(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim

    def project(self, x):
        return nn.Linear(self.dim, 2)(x)  # expect: GL505

    def forward(self, x):
        x = nn.LayerNorm(self.dim)(x)  # expect: GL505
        gate = nn.Parameter(torch.ones(self.dim))  # expect: GL505
        return self.project(x * gate)


model = Head(4)
model(torch.randn(3, 4))
if not list(model.parameters()):
    raise AssertionError("the layers built in forward are not parameters of the model")
