"""Seed 001 fixed: keep the batch dim, let -1 absorb the features."""
import torch
import torch.nn as nn


class MyModule(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x):
        x = x.reshape(x.size(0), -1)
        return self.linear(x)


model = MyModule(20, 5)
model(torch.randn(3, 4, 5))
