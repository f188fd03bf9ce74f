# torch: ValueError: optimizer got an empty parameter list
# Modelled on pytorch/examples#277: a hand-written layer keeps its weights as plain tensors.
import torch
import torch.nn as nn


class DecompLinear(nn.Module):
    def __init__(self, n_in, n_out):
        super().__init__()
        self.W = torch.randn(n_in, n_out, requires_grad=True)  # expect: GL501
        self.b = torch.zeros(n_out)
        self.b.requires_grad = True  # expect: GL501

    def forward(self, x):
        return x @ self.W + self.b


model = DecompLinear(4, 2)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
