"""A (1,)-shaped output has one element: backward() without gradient is fine."""
import torch

w = torch.randn(3, requires_grad=True)
out = (w * 2).sum(0, keepdim=True)
out.backward()
