"""The twin: the parent passes its own batch to the submodule, whose view hard-codes it."""
# torch: is invalid for input of size
import torch
from torch import nn


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(48, 10)

    def forward(self, feats):
        return self.fc(feats.view(32, 48))  # expect: GL403


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 3, 3, padding=1)
        self.head = Head()

    def forward(self, x):
        return self.head(self.conv(x))


Net()(torch.randn(7, 3, 4, 4))
