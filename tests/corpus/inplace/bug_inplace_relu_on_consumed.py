# An in-place activation on a tensor a Linear layer already saved (Xception-style reuse).
import torch
import torch.nn as nn


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 4)
        self.fc2 = nn.Linear(4, 4)
        self.relu = nn.ReLU(inplace=True)

    def forward(self, x):
        h = self.fc1(x)
        skip = self.fc2(h)
        h = self.relu(h)  # expect: GL103
        return h + skip


Block()(torch.randn(2, 4)).sum().backward()
