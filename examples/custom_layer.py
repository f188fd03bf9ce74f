"""A custom layer with a hand-written backward that autograd never calls (seed 002)."""

import torch
import torch.nn as nn


class MyLinearLayer(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(in_features, out_features))
        self.bias = nn.Parameter(torch.randn(out_features))

    def forward(self, x):
        self.x = x
        return torch.mm(x, self.weight) + self.bias

    def backward(self, grad_output):
        grad_input = torch.mm(grad_output, self.weight.t())
        grad_weight = torch.mm(self.x.t(), grad_output)
        return grad_input, grad_weight, grad_output.sum(dim=0)
