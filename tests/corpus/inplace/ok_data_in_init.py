# Legacy initialisation through .data: harmless outside a forward/backward pair.
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)
        self.fc.weight.data.normal_(0.0, 0.02)
        self.fc.bias.data.zero_()

    def forward(self, x):
        return self.fc(x)


Net()(torch.randn(3, 4)).sum().backward()
