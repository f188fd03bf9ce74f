"""x.view(x.size(0), -1) flattens per sample: always valid on a contiguous tensor."""
import torch

x = torch.randn(4, 3, 2, 2)
flat = x.view(x.size(0), -1)
out = torch.nn.functional.linear(flat, torch.randn(5, 12))
