# `+=` into a ReLU output while building an FPN (lyongo/NWPU-MOC#4).
import torch
import torch.nn as nn
import torch.nn.functional as F


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.lateral = nn.Linear(4, 4)
        self.top = nn.Linear(4, 4)

    def forward(self, x):
        lateral = F.relu(self.lateral(x))
        lateral += self.top(x)  # expect: GL103
        return lateral


Head()(torch.randn(3, 4)).sum().backward()
