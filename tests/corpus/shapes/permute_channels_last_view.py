"""Flattening a permuted image batch per sample with view (merges w and c out of order)."""
# torch: view size is not compatible
import torch

images = torch.randn(2, 3, 4, 5)
pixels = images.permute(0, 3, 1, 2).view(2, -1)  # expect: GL401
