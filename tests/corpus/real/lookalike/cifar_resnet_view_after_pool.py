# source: https://github.com/kuangliu/pytorch-cifar/blob/master/models/resnet.py
# expect: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


class ResNetTail(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, kernel_size=3, stride=1, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(8)
        self.linear = nn.Linear(8, num_classes)

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = F.avg_pool2d(out, 4)
        out = out.view(out.size(0), -1)
        return self.linear(out)


net = ResNetTail()
loss = F.cross_entropy(net(torch.randn(2, 3, 4, 4)), torch.tensor([1, 2]))
loss.backward()
