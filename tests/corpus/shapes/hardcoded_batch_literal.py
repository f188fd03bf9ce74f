"""A literal batch size in forward."""
# torch: is invalid for input of size
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(48, 10)

    def forward(self, x):
        return self.fc(x.view(32, 48))  # expect: GL403


Net()(torch.randn(7, 3, 4, 4))
