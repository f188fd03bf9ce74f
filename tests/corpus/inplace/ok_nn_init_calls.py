# nn.init.* functions write into parameters under no_grad internally.
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.scale = nn.Parameter(torch.empty(4))
        self.reset_parameters()

    def reset_parameters(self):
        nn.init.kaiming_uniform_(self.fc.weight)
        nn.init.zeros_(self.fc.bias)
        nn.init.ones_(self.scale)

    def forward(self, x):
        return self.fc(x) * self.scale


Net()(torch.randn(2, 4)).sum().backward()
