# In-place ReLU applied to a sigmoid output (osmr/imgclsmob#13 pattern).
import torch
import torch.nn as nn


class Gate(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 6)
        self.act = nn.ReLU(inplace=True)

    def forward(self, x):
        g = torch.sigmoid(self.fc(x))
        g = self.act(g)  # expect: GL103
        return g * x


Gate()(torch.randn(2, 6)).sum().backward()
