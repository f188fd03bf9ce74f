"""Different shapes on two branches: the join is unknown, nothing is claimed."""
import torch

if torch.rand(()) > 0.5:
    x = torch.randn(4, 6)
else:
    x = torch.randn(6, 4)
y = x.view(3, 8)
