"""The same net on the 32x32 images its flatten size was computed for."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 6, 5)
        self.fc = nn.Linear(6 * 14 * 14, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv(x)), 2)
        x = x.view(-1, 6 * 14 * 14)
        return self.fc(x)


net = Net()
out = net(torch.randn(1, 3, 32, 32))
