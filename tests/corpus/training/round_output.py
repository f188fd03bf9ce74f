# torch: ok
# round() in forward: backward runs, but the gradient is zero everywhere.
import torch
import torch.nn as nn


class Rounder(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 2)

    def forward(self, x):
        return torch.round(self.fc(x) * 4)  # expect: GL203


model = Rounder()
model(torch.randn(5, 3)).pow(2).sum().backward()
assert model.fc.weight.grad.abs().sum() == 0
