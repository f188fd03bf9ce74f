"""Batched attention scores with keys not transposed."""
# torch: Expected size for first two dimensions of batch2 tensor
import torch

queries = torch.randn(2, 5, 8)
keys = torch.randn(2, 5, 8)
scores = torch.bmm(queries, keys)  # expect: GL404
