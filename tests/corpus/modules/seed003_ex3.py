# torch: ok
# Seed 003, example 3, verbatim but for this header and the expect comments.
import torch
import torch.nn as nn
import torch.nn.functional as F

# Define a simple linear layer
class MyLinearLayer(nn.Module):
    def __init__(self, input_size, output_size):
        super(MyLinearLayer, self).__init__()
        self.weight = nn.Parameter(torch.randn(output_size, input_size))
        self.bias = nn.Parameter(torch.randn(output_size))

    def forward(self, x):
        return F.linear(x, self.weight, self.bias) #Uses PyTorch functional API

# Define parameters and input
linear_layer = MyLinearLayer(3, 2)
input_tensor = torch.randn(1, 3)


# Perform forward pass
output = linear_layer(input_tensor)
print(output)

# Calculate gradients (optional but recommended)
output.sum().backward()
print(linear_layer.weight.grad)
print(linear_layer.bias.grad)
