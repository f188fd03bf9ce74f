# Masking attention probabilities in place after the softmax.
import torch
import torch.nn as nn
import torch.nn.functional as F


class Attention(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.q = nn.Linear(dim, dim)
        self.k = nn.Linear(dim, dim)

    def forward(self, x, mask):
        scores = self.q(x) @ self.k(x).transpose(-2, -1)
        attn = F.softmax(scores, dim=-1)
        attn.masked_fill_(mask, 0.0)  # expect: GL103
        return attn @ x


x = torch.randn(2, 5, 8)
mask = torch.rand(2, 5, 5) > 0.7
Attention(8)(x, mask).sum().backward()
