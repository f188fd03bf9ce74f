"""Forgetting the transpose in x @ W for a (out, in) weight."""
# torch: mat1 and mat2 shapes cannot be multiplied
import torch

x = torch.randn(8, 16)
weight = torch.randn(4, 16)
y = x @ weight  # expect: GL404
