"""The same product with the second operand transposed."""
import torch

a = torch.randn(10, 5)
b = torch.randn(3, 5)
c = torch.mm(a, b.t())
