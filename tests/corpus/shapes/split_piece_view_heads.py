"""Viewing one piece of a split: the piece is narrower than the rows it sits in."""
# torch: view size is not compatible with input tensor's size and stride
import torch
import torch.nn as nn


class FusedProjection(nn.Module):
    def __init__(self, hidden=8, heads=2):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(hidden, 3 * hidden)

    def forward(self, x):
        q, k, v = self.qkv(x).split([8, 8, 8], dim=-1)
        q = q.view(-1, self.heads)  # expect: GL401
        return q, k, v


layer = FusedProjection()
layer(torch.randn(5, 8))
