# source: https://github.com/osmr/imgclsmob/issues/13
# expect: one of the variables needed for gradient computation has been modified by an inplace operation
# buggy-line: 30
# mechanism: the block body starts with a shared `nn.ReLU(inplace=True)` applied to `x`, which the identity convolution already saved as its input
import torch
import torch.nn as nn


class DwsConv(nn.Module):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.dw_conv = nn.Conv2d(in_channels, in_channels, 3, padding=1, groups=in_channels, bias=False)
        self.pw_conv = nn.Conv2d(in_channels, out_channels, 1, bias=False)

    def forward(self, x):
        return self.pw_conv(self.dw_conv(x))


class DwsConvBlock(nn.Module):
    def __init__(self, in_channels, out_channels, activate):
        super().__init__()
        self.activate = activate
        if self.activate:
            self.activ = nn.ReLU(inplace=True)
        self.conv = DwsConv(in_channels, out_channels)
        self.bn = nn.BatchNorm2d(out_channels)

    def forward(self, x):
        if self.activate:
            x = self.activ(x)
        return self.bn(self.conv(x))


class XceptionUnit(nn.Module):
    def __init__(self, in_channels, out_channels, stride=2, reps=2):
        super().__init__()
        self.resize_identity = (in_channels != out_channels) or (stride != 1)
        if self.resize_identity:
            self.identity_conv = nn.Sequential(
                nn.Conv2d(in_channels, out_channels, 1, stride=stride, bias=False), nn.BatchNorm2d(out_channels)
            )
        self.body = nn.Sequential()
        for i in range(reps):
            self.body.add_module("block{}".format(i + 1), DwsConvBlock(in_channels if i == 0 else out_channels, out_channels, activate=True))
        if stride != 1:
            self.body.add_module("pool", nn.MaxPool2d(3, stride=stride, padding=1))

    def forward(self, x):
        if self.resize_identity:
            identity = self.identity_conv(x)
        else:
            identity = x
        x = self.body(x)
        return x + identity


model = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.BatchNorm2d(4), XceptionUnit(4, 8))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
criterion = nn.MSELoss()
for _ in range(1):
    optimizer.zero_grad()
    loss = criterion(model(torch.randn(2, 3, 8, 8)), torch.zeros(2, 8, 4, 4))
    loss.backward()
    optimizer.step()
