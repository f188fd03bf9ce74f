# A tensor multiplied by a learnable scale, then reused as a scratch buffer.
import torch
import torch.nn as nn


class Scale(nn.Module):
    def __init__(self):
        super().__init__()
        self.alpha = nn.Parameter(torch.ones(1))

    def forward(self, x):
        h = x.clone()
        out = h * self.alpha
        h.zero_()  # expect: GL103
        return out + h


Scale()(torch.randn(4)).sum().backward()
