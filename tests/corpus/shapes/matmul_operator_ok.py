"""x @ W.T for a (out, in) weight, as F.linear does."""
import torch

x = torch.randn(8, 16)
weight = torch.randn(4, 16)
y = x @ weight.T
z = torch.nn.functional.linear(x, weight)
