"""shape '[10, 3]' is invalid for input of size 20 (seed 002 style custom reshape)."""
# torch: is invalid for input of size
import torch

x = torch.randn(5, 4)
y = x.view(10, 3)  # expect: GL402
