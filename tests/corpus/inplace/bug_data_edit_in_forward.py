# Renormalising a weight through .data after forward used it.
import torch
import torch.nn as nn
import torch.nn.functional as F


class Renorm(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.full((3, 3), 2.0))

    def forward(self, x):
        out = F.linear(x, self.weight)
        self.weight.data.div_(self.weight.data.norm())  # expect: GL102
        return (out**2).sum()


x = torch.ones(1, 3, requires_grad=True)
Renorm()(x).backward()
expected = 2 * (x @ torch.full((3, 3), 2.0).t()) @ torch.full((3, 3), 2.0)
assert torch.allclose(x.grad, expected), "gradient from renormalised values"
