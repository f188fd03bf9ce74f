# Seed 001, example 3: `x[x < 0] = 0` on the forward input, which the caller's
# sigmoid saved for backward.
import torch
import torch.nn as nn


class MyModule(nn.Module):
    def forward(self, x):
        x[x < 0.5] = 0  # expect: GL105
        return x


logits = torch.randn(10, requires_grad=True)
MyModule()(torch.sigmoid(logits)).sum().backward()
