# In-place ReLU on a Linear output: the Linear saved its input, not its output.
import torch
import torch.nn as nn


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.act = nn.ReLU(inplace=True)
        self.fc2 = nn.Linear(8, 1)

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)))


MLP()(torch.randn(3, 4)).sum().backward()
