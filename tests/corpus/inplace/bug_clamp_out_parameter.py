# Projecting a parameter into [0, 1] with out= inside forward.
import torch
import torch.nn as nn


class Mixture(nn.Module):
    def __init__(self):
        super().__init__()
        self.weights = nn.Parameter(torch.rand(4))

    def forward(self, x):
        torch.clamp(self.weights, 0.0, 1.0, out=self.weights)  # expect: GL101
        return x * self.weights


Mixture()(torch.randn(4))
