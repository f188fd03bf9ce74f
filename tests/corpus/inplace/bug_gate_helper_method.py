# A gating helper method shifts a sigmoid output in place.
import torch
import torch.nn as nn


class GatedUnit(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 4)

    def _gate(self, h):
        g = torch.sigmoid(h)
        g -= 0.5  # expect: GL103
        return g

    def forward(self, x):
        return x * self._gate(self.proj(x))


GatedUnit()(torch.randn(3, 4)).sum().backward()
