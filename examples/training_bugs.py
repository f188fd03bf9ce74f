"""Seed 001: a module that updates its own parameter in forward, a hard threshold
written as a masked assignment into its caller's scores, and a reshape that mixes samples
before a Linear."""

import torch
import torch.nn as nn


class AddWeight(nn.Module):
    def __init__(self, size):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(size))

    def forward(self, x):
        self.weight += x
        return self.weight


class Threshold(nn.Module):
    def forward(self, x):
        x[x < 0] = 0
        return x


class Flatten10(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x):
        x = x.reshape(-1, 10)
        return self.linear(x)


model = Flatten10(20, 5)
out = model(torch.randn(1, 20))


scores = torch.randn(4, 10)
kept = Threshold()(scores)
print((kept - scores).abs().max())  # 0: the caller's scores were thresholded too
