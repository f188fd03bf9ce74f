"""F.linear with a weight whose in_features do not match the input."""
# torch: mat1 and mat2 shapes cannot be multiplied
import torch
import torch.nn.functional as F

x = torch.randn(4, 12)
w = torch.randn(6, 10)
y = F.linear(x, w)  # expect: GL404
