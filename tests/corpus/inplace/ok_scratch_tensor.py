# A torch.zeros scratch tensor filled with masked and indexed writes.
import torch
import torch.nn as nn


class Scatter(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        mask = torch.zeros(x.size(0), 4, dtype=torch.bool)
        mask[:, 0] = True
        bias = torch.zeros(x.size(0), 4)
        bias[mask] = 1.0
        return self.fc(x) + bias


Scatter()(torch.randn(3, 4)).sum().backward()
