# The sigmoid output is cloned before the masked write.
import torch
import torch.nn as nn


class Detector(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = nn.Linear(8, 4)

    def forward(self, x):
        p = torch.sigmoid(self.head(x)).clone()
        p[p < 0.3] = 0
        return p


Detector()(torch.randn(5, 8)).sum().backward()
