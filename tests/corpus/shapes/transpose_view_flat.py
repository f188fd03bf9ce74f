"""Flattening a transposed matrix with view (a common forum report)."""
# torch: view size is not compatible
import torch

weights = torch.randn(4, 6)
flat = weights.t().view(-1)  # expect: GL401
