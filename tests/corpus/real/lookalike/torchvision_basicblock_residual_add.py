# source: https://github.com/pytorch/vision/blob/main/torchvision/models/resnet.py
# expect: clean
# note: `out += identity` edits a BatchNorm output in place (BatchNorm does not save its output), then ReLU(inplace=True) edits the sum
import torch
import torch.nn as nn


class BasicBlock(nn.Module):
    expansion = 1

    def __init__(self, inplanes, planes, stride=1, downsample=None):
        super().__init__()
        self.conv1 = nn.Conv2d(inplanes, planes, 3, stride=stride, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = nn.Conv2d(planes, planes, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.downsample = downsample

    def forward(self, x):
        identity = x

        out = self.conv1(x)
        out = self.bn1(out)
        out = self.relu(out)

        out = self.conv2(out)
        out = self.bn2(out)

        if self.downsample is not None:
            identity = self.downsample(x)

        out += identity
        out = self.relu(out)
        return out


downsample = nn.Sequential(nn.Conv2d(4, 8, 1, stride=2, bias=False), nn.BatchNorm2d(8))
layer = nn.Sequential(BasicBlock(4, 8, stride=2, downsample=downsample), BasicBlock(8, 8))
optimizer = torch.optim.SGD(layer.parameters(), lr=0.1)
x = torch.randn(2, 4, 8, 8)
for _ in range(2):
    optimizer.zero_grad()
    loss = layer(x).pow(2).mean()
    loss.backward()
    optimizer.step()
