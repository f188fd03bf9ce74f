"""Shapes that change in a loop are joined to unknown: no finding."""
import torch

h = torch.randn(4, 8)
for _ in range(3):
    h = torch.cat([h, h], dim=1)
y = h.view(4, -1)
