# torch: AssertionError: the encoder still trains
# `requires_grad = False` on modules (from children() and through a helper) sets plain
# attributes: no parameter is frozen.
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(4, 8), nn.ReLU())
        self.head = nn.Linear(8, 2)

    def forward(self, x):
        return self.head(self.encoder(x))


def freeze(module):
    module.requires_grad = False  # expect: GL204


model = Net()
for child in model.encoder.children():
    child.requires_grad = False  # expect: GL204
freeze(model.encoder)
if model.encoder[0].weight.requires_grad:
    raise AssertionError("the encoder still trains")
