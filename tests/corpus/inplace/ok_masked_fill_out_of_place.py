# Out-of-place masked_fill before the softmax (the usual attention mask).
import torch
import torch.nn as nn
import torch.nn.functional as F


class Attention(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.q = nn.Linear(dim, dim)

    def forward(self, x, mask):
        scores = self.q(x) @ x.transpose(-2, -1)
        scores = scores.masked_fill(mask, float("-inf"))
        return F.softmax(scores, dim=-1) @ x


mask = torch.zeros(2, 5, 5, dtype=torch.bool)
Attention(8)(torch.randn(2, 5, 8), mask).sum().backward()
