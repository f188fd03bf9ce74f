"""The per-sample losses averaged before backward."""
import torch
import torch.nn as nn


class SquaredError(nn.Module):
    def forward(self, pred, target):
        return ((pred - target) ** 2).sum(dim=1)


model = nn.Linear(5, 2)
criterion = SquaredError()
for _ in range(2):
    loss = criterion(model(torch.randn(4, 5)), torch.randn(4, 2)).mean()
    loss.backward()
