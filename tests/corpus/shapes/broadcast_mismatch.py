"""Adding per-class bias to per-sample logits with the wrong orientation."""
# torch: The size of tensor a
import torch

logits = torch.randn(8, 5)
bias = torch.randn(8, 3)
scores = logits + bias  # expect: GL404
