"""A -1 that cannot be inferred: 3*32*32 features per image reshaped into rows of 1000."""
# torch: is invalid for input of size
import torch

images = torch.randn(2, 3, 32, 32)
rows = images.reshape(-1, 1000)  # expect: GL402
