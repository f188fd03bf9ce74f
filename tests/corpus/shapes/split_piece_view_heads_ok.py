"""Splitting the last dim of a piece into heads only splits: a view works."""
import torch
import torch.nn as nn


class FusedProjection(nn.Module):
    def __init__(self, hidden=8, heads=2):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(hidden, 3 * hidden)

    def forward(self, x):
        q, k, v = self.qkv(x).split([8, 8, 8], dim=-1)
        q = q.view(q.size(0), self.heads, -1)
        return q, k, v


layer = FusedProjection()
layer(torch.randn(5, 8))
