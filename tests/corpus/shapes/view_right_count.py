"""Seed 002 example 3: view(10, 2) of a 5x4 tensor is valid."""
import torch

x = torch.randn(5, 4)
y = x.view(10, 2)
