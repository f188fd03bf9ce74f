# Accumulating into a hidden state after a Linear layer consumed it.
import torch
import torch.nn as nn


class TwoLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 4)
        self.fc2 = nn.Linear(4, 4)

    def forward(self, x):
        h = self.fc1(x)
        y = self.fc2(h)
        h += y  # expect: GL103
        return h


TwoLayer()(torch.randn(2, 4)).sum().backward()
