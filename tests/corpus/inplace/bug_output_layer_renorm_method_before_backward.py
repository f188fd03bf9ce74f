# A trainer renormalises the output layer's weight through `.data` in a method it calls
# between the forward pass and backward(): the hidden layer's gradient uses the
# renormalised rows, not the ones the forward pass used.
import copy

import torch
import torch.nn as nn


class Trainer:
    def __init__(self, model):
        self.model = model

    def renormalise(self):
        weight = self.model[2].weight
        weight.data.div_(weight.data.norm(dim=1, keepdim=True))  # expect: GL102

    def gradients(self, x):
        loss = self.model(x).pow(2).sum()
        self.renormalise()
        loss.backward()
        return self.model[0].weight.grad


torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 6), nn.ReLU(), nn.Linear(6, 4))
reference = copy.deepcopy(model)
x = torch.randn(5, 3)
reference(x).pow(2).sum().backward()
assert torch.allclose(Trainer(model).gradients(x), reference[0].weight.grad)
