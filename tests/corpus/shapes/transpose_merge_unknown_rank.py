"""Transposing dims 1 and 2, then merging everything after dim 0: fails at every rank."""
# torch: view size is not compatible with input tensor's size and stride
import torch
import torch.nn as nn


class Head(nn.Module):
    def __init__(self, features=60):
        super().__init__()
        self.fc = nn.Linear(features, 2)

    def forward(self, x):
        flat = x.transpose(1, 2).view(x.size(0), -1)  # expect: GL401
        return self.fc(flat)


def build():
    return Head()


build()(torch.randn(2, 3, 4, 5))
