"""Seed 001 example 1: reshape(-1, 10) before nn.Linear(20, 5) folds features into rows."""
# torch: mat1 and mat2 shapes cannot be multiplied
import torch
import torch.nn as nn


class MyModule(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x):
        x = x.reshape(-1, 10)  # expect: GL403
        x = self.linear(x)
        return x


model = MyModule(20, 5)
model(torch.randn(1, 20))
