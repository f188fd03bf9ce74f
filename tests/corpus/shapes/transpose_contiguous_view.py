"""Merging attention heads the right way: contiguous() before view."""
import torch

batch, heads, seq, dim = 2, 4, 5, 8
context = torch.randn(batch, heads, seq, dim)
context = context.transpose(1, 2).contiguous()
merged = context.view(batch, seq, heads * dim)
