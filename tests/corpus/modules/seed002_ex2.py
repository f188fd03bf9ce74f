# torch: ok
# Seed 002, example 2, verbatim but for this header and the expect comments.
import torch
import torch.nn as nn

class MyActivation(nn.Module):
    def forward(self, x):
        self.x = x
        return torch.sigmoid(x)

    def backward(self, grad_output):  # expect: GL303
        return grad_output * torch.sigmoid(self.x) * (1 - torch.sigmoid(self.x))

# Example Usage
activation = MyActivation()
input = torch.randn(2,5)
output = activation(input)
grad_output = torch.ones_like(output)
grad_input = activation.backward(grad_output)
print(grad_input.shape)
