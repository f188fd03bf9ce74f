# source: https://github.com/pytorch/pytorch/issues/727
# expect: a leaf Variable that requires grad is being used in an in-place operation
# buggy-line: 20
# also-line: 21
# mechanism: `F.relu(x, inplace=True)` as the first op of a forward whose input `x` is a leaf created with requires_grad=True (input gradients for a saliency map)
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import Variable


class Head(nn.Module):
    def __init__(self, channels=6, classes=3):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, 3, padding=1)
        self.fc = nn.Linear(channels, classes)

    def forward(self, x):
        x = F.relu(x, inplace=True)
        x = F.dropout(x, p=0.1, training=self.training, inplace=True)
        x = self.conv(x)
        return self.fc(x.mean(dim=(2, 3)))


head = Head()
x = Variable(torch.from_numpy(np.random.randn(2, 6, 5, 5)).float(), requires_grad=True)
result = head(x)[:, 1].sum()
result.backward()
saliency = x.grad.abs().amax(dim=1)
