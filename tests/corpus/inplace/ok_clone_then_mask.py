# The forward input is cloned before the masked write.
import torch
import torch.nn as nn


class Relu(nn.Module):
    def forward(self, x):
        x = x.clone()
        x[x < 0] = 0
        return x


inp = torch.randn(6, requires_grad=True)
Relu()(torch.sigmoid(inp) - 0.5).sum().backward()
