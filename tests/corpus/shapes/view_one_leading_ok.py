"""A leading 1 added to a single sample, outside any batch dim."""
import torch

single = torch.randn(3, 4)
batch = single.view(1, 3, 4)
