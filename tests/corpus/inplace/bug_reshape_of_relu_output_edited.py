# A coupling layer's network ends with ReLU; its output is reshaped (a view, the output is
# contiguous) and a slice is rescaled in place: ReLU saved that output for backward.
import torch
import torch.nn as nn


class Coupling(nn.Module):
    def __init__(self, features=4, bins=3):
        super().__init__()
        self.bins = bins
        self.net = nn.Sequential(nn.Linear(features, 16), nn.ReLU(), nn.Linear(16, features * bins), nn.ReLU())

    def forward(self, x):
        params = self.net(x).reshape(x.shape[0], x.shape[1], self.bins)
        widths = params[..., :2]
        widths *= 0.5  # expect: GL103
        return torch.softmax(widths, dim=-1).sum(-1) * x


Coupling()(torch.randn(8, 4)).sum().backward()
