"""Seed 000 example 2: gradient of the reduced shape."""
import torch

input_tensor = torch.randn(10, 5, requires_grad=True)
weight = torch.randn(5, 3, requires_grad=True)
output = torch.mm(input_tensor, weight)
reduced = torch.sum(output, dim=1, keepdim=False)
reduced.backward(torch.randn(10))
