# `x.view(x.size(0), -1)` of a Linear output, then an in-place add on it.
import torch
import torch.nn as nn


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 6)
        self.bias = nn.Parameter(torch.zeros(6))

    def forward(self, x):
        h = self.fc(x)
        h = h.view(h.size(0), -1)
        h += self.bias
        return h


Head()(torch.randn(3, 4)).sum().backward()
