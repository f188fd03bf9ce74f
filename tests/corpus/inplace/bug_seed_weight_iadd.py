# Seed 001, example 2: `self.weight += x` inside forward.
import torch
import torch.nn as nn


class MyModule(nn.Module):
    def __init__(self, size):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(size))

    def forward(self, x):
        self.weight += x  # expect: GL101
        return self.weight


model = MyModule(10)
model(torch.randn(10)).sum().backward()
