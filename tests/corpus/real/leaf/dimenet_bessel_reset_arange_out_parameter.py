# source: https://github.com/pyg-team/pytorch_geometric/pull/4424
# expect: functions with out=... arguments don't support automatic differentiation
# buggy-line: 38
# mechanism: reset_parameters writes into the frequency Parameter with torch.arange(..., out=self.freq).mul_(PI) outside torch.no_grad()
import math

import torch
from torch.nn import Linear, Parameter

PI = math.pi


class Envelope(torch.nn.Module):
    def __init__(self, exponent):
        super().__init__()
        self.p = exponent + 1
        self.a = -(self.p + 1) * (self.p + 2) / 2
        self.b = self.p * (self.p + 2)
        self.c = -self.p * (self.p + 1) / 2

    def forward(self, x):
        p, a, b, c = self.p, self.a, self.b, self.c
        x_pow_p0 = x.pow(p - 1)
        x_pow_p1 = x_pow_p0 * x
        x_pow_p2 = x_pow_p1 * x
        return 1.0 / x + a * x_pow_p0 + b * x_pow_p1 + c * x_pow_p2


class BesselBasisLayer(torch.nn.Module):
    def __init__(self, num_radial, cutoff=5.0, envelope_exponent=5):
        super().__init__()
        self.cutoff = cutoff
        self.envelope = Envelope(envelope_exponent)
        self.freq = Parameter(torch.Tensor(num_radial))
        self.reset_parameters()

    def reset_parameters(self):
        torch.arange(1, self.freq.numel() + 1, out=self.freq).mul_(PI)

    def forward(self, dist):
        dist = dist.unsqueeze(-1) / self.cutoff
        return self.envelope(dist) * (self.freq * dist).sin()


class DimeNet(torch.nn.Module):
    def __init__(self, hidden_channels, out_channels, num_radial, cutoff=5.0, envelope_exponent=5):
        super().__init__()
        self.cutoff = cutoff
        self.rbf = BesselBasisLayer(num_radial, cutoff, envelope_exponent)
        self.lin = Linear(num_radial, hidden_channels)
        self.out = Linear(hidden_channels, out_channels)

    def forward(self, dist):
        return self.out(self.lin(self.rbf(dist)).relu()).sum()


model = DimeNet(hidden_channels=5, out_channels=19, num_radial=6)
model(torch.rand(10) * 4 + 0.5).backward()
