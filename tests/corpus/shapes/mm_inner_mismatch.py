"""torch.mm with inner dims that differ (pytorch/pytorch#139037 style)."""
# torch: mat1 and mat2 shapes cannot be multiplied
import torch

a = torch.randn(10, 5)
b = torch.randn(3, 5)
c = torch.mm(a, b)  # expect: GL404
