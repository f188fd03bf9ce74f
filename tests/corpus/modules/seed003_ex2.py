# torch: ok
# Seed 003, example 2, verbatim but for this header and the expect comments.
import torch
import torch.nn as nn

# Define parameters
param_tensor = nn.Parameter(torch.randn(3, 3))
data_tensor = torch.randn(3, 3)

# Correct approach using torch.mm
result = torch.mm(param_tensor, data_tensor) # matrix multiplication
print(result)

# Check gradients (optional but recommended)
result.sum().backward()
print(param_tensor.grad)
