# Adding epsilon in place to a norm computed with sqrt.
import torch
import torch.nn as nn


class Normalise(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(6, 6)

    def forward(self, x):
        h = self.proj(x)
        norm = torch.sqrt((h * h).sum(dim=1, keepdim=True))
        norm += 1e-8  # expect: GL103
        return h / norm


Normalise()(torch.randn(3, 6)).sum().backward()
