"""Batched attention scores with keys transposed."""
import torch

queries = torch.randn(2, 5, 8)
keys = torch.randn(2, 5, 8)
scores = torch.bmm(queries, keys.transpose(1, 2))
