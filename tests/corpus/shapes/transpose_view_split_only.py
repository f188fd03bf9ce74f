"""Attention heads: transpose then view that only splits a dim (transformers style)."""
import torch

b, h, s, d = 2, 4, 5, 8
scores = torch.randn(b, h, s, d)
moved = scores.transpose(1, 2)
split = moved.view(b, s, h, 2, d // 2)
