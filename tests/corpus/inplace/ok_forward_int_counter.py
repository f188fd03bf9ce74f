# `+=` on a non-tensor forward argument rebinds a local name.
import torch
import torch.nn as nn


class Stepper(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x, steps=1):
        for _ in range(2):
            x = self.fc(x)
            steps += 1
        return x * steps


Stepper()(torch.randn(2, 4)).sum().backward()
