# torch: ok
# Seed 002, example 1, verbatim but for this header and the expect comments.
import torch
import torch.nn as nn

class MyLinearLayer(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(in_features, out_features))
        self.bias = nn.Parameter(torch.randn(out_features))

    def forward(self, x):
        self.x = x # save input for backward pass
        return torch.mm(x, self.weight) + self.bias

    def backward(self, grad_output):  # expect: GL303
        grad_input = torch.mm(grad_output, self.weight.t())
        grad_weight = torch.mm(self.x.t(), grad_output)
        grad_bias = grad_output.sum(dim=0)
        return grad_input, grad_weight, grad_bias


# Example usage
layer = MyLinearLayer(10, 5)
input = torch.randn(1,10)
output = layer(input)
grad_output = torch.ones_like(output)
grad_input, grad_weight, grad_bias = layer.backward(grad_output)

print(grad_input.shape, grad_weight.shape, grad_bias.shape)
