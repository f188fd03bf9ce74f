"""Per-sample flatten is right, the Linear size is stale (CrypTen#487: 9216 vs 64*12*12)."""
# torch: mat1 and mat2 shapes cannot be multiplied
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(9216, 128)

    def forward(self, x):
        return self.fc1(x)


net = Net()
features = torch.randn(4, 32, 12, 12)
flat = features.view(features.size(0), -1)
out = net.fc1(flat)  # expect: GL404
