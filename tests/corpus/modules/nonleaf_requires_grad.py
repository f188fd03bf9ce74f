# torch: RuntimeError: you can only change requires_grad flags of leaf variables.
# Trying to "make sure" a layer's output requires grad.
import torch
import torch.nn as nn


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        hidden = self.fc(x)
        hidden.requires_grad = True  # expect: GL204
        return hidden.relu()


Encoder()(torch.randn(2, 4))
