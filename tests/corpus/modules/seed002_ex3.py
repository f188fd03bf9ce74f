# torch: ok
# Seed 002, example 3, verbatim but for this header and the expect comments.
import torch
import torch.nn as nn

class MyReshapeLayer(nn.Module):
    def __init__(self, *shape):
        super().__init__()
        self.shape = shape

    def forward(self, x):
        self.original_shape = x.shape
        return x.view(*self.shape)

    def backward(self, grad_output):  # expect: GL303
        return grad_output.view(*self.original_shape)

#Example usage
reshape_layer = MyReshapeLayer(10,2)
input = torch.randn(5,4)
output = reshape_layer(input)
grad_output = torch.ones_like(output)
grad_input = reshape_layer.backward(grad_output)
print(grad_input.shape)
