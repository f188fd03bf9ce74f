"""A ViT-style attention: the fused qkv projection is unpacked into q, k, v (rows of a
permuted tensor), and the heads' output is merged back with `.reshape`, which copies the transposed layout."""

import math

import torch
import torch.nn as nn


class Attention(nn.Module):
    def __init__(self, dim=32, num_heads=4):
        super().__init__()
        self.num_heads = num_heads
        self.head_dim = dim // num_heads
        self.qkv = nn.Linear(dim, dim * 3)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        B, N, C = x.shape
        qkv = self.qkv(x).reshape(B, N, 3, self.num_heads, C // self.num_heads)
        q, k, v = qkv.permute(2, 0, 3, 1, 4)
        attn = (q @ k.transpose(-2, -1)) / math.sqrt(self.head_dim)
        x = (attn.softmax(dim=-1) @ v).transpose(1, 2).reshape(B, N, -1)
        return self.proj(x)


Attention()(torch.randn(2, 5, 32)).sum().backward()
