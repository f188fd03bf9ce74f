# A gating helper applies sigmoid_() in place, then rescales the gate in place:
# sigmoid_ saved its result for backward.
import torch
import torch.nn as nn


def gate(h, temperature):
    h.sigmoid_()
    h *= temperature  # expect: GL103
    return h


class GatedBlock(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x):
        return x * gate(self.fc(x), 2.0)


block = GatedBlock(4)
for step in range(2):
    block(torch.randn(5, 4)).sum().backward()
