"""Merging attention heads after transpose without contiguous (a classic multi-head bug)."""
# torch: view size is not compatible
import torch

batch, heads, seq, dim = 2, 4, 5, 8
context = torch.randn(batch, heads, seq, dim)
context = context.transpose(1, 2)
merged = context.view(batch, seq, heads * dim)  # expect: GL401
