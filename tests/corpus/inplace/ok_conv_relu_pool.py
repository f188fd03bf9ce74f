# A VGG-style stack: in-place ReLU right after each convolution.
import torch
import torch.nn as nn
import torch.nn.functional as F


class Features(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 4, 3, padding=1)
        self.conv2 = nn.Conv2d(4, 4, 3, padding=1)

    def forward(self, x):
        x = F.relu(self.conv1(x), inplace=True)
        x = F.max_pool2d(x, 2)
        x = F.relu(self.conv2(x), inplace=True)
        return x


Features()(torch.randn(1, 3, 8, 8)).sum().backward()
