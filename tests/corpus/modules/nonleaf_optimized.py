# torch: ValueError: can't optimize a non-leaf Tensor
# Tensors that are not leaves handed to optimizers: made by a helper that scales after
# requires_grad=True, stored on a module, and a slice of a parameter in a param group.
import torch
import torch.nn as nn


def make_bias(n):
    return torch.zeros(n, requires_grad=True) + 0.1


class Prompt(nn.Module):
    def __init__(self):
        super().__init__()
        self.context = torch.randn(4, 8, requires_grad=True) * 0.02
        self.proj = nn.Linear(8, 8)

    def forward(self, x):
        return self.proj(x + self.context)


prompt = Prompt()
bias = make_bias(8)
head = torch.optim.SGD([{"params": [prompt.proj.weight[:, :4]]}], lr=0.1)  # expect: GL206
optimizer = torch.optim.Adam([prompt.context, bias], lr=1e-3)  # expect: GL206
