# torch: ok
# Seed 003, example 1, verbatim but for this header and the expect comments.
import torch
import torch.nn as nn

# Define parameters
param_tensor = nn.Parameter(torch.randn(3, 3))
data_tensor = torch.randn(3, 3)

# Incorrect multiplication (likely to cause error)
try:
    result = param_tensor * data_tensor  # Direct multiplication
    print(result)
except RuntimeError as e:
    print(f"Error: {e}")
