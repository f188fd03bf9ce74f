"""Attention heads moved forward with transpose(1, 2), the sizes read back by unpacking,
then the last two dims merged with view: they are not neighbours in memory."""
# torch: view size is not compatible
import torch
import torch.nn as nn


class HeadMix(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.out = nn.Linear(dim, dim)

    def forward(self, x):
        heads = x.transpose(1, 2)
        b, h, n, d = heads.shape
        merged = heads.view(b, h, n * d)  # expect: GL401
        return merged.sum(-1)


HeadMix()(torch.randn(2, 5, 3, 4))
