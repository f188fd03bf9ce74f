# source: https://github.com/iMED-Lab/ER-Net/pull/3
# expect: clean
# mechanism: the encoder block's shared self.relu (a ReLU module, not in place) produced `out`; `out += residual` edits the ReLU output its backward saved
import torch
import torch.nn as nn


class ResEncoder3d(nn.Module):
    def __init__(self, in_channels, out_channels):
        super(ResEncoder3d, self).__init__()
        self.conv1 = nn.Conv3d(in_channels, out_channels, kernel_size=3, padding=1)
        self.bn1 = nn.BatchNorm3d(out_channels)
        self.conv2 = nn.Conv3d(out_channels, out_channels, kernel_size=3, padding=1)
        self.bn2 = nn.BatchNorm3d(out_channels)
        self.relu = nn.ReLU(inplace=False)
        self.conv1x1 = nn.Conv3d(in_channels, out_channels, kernel_size=1)

    def forward(self, x):
        residual = self.conv1x1(x)
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.relu(self.bn2(self.conv2(out)))
        out = out + residual
        out = self.relu(out)
        return out


def downsample():
    return nn.MaxPool3d(kernel_size=2, stride=2)


class ER_Net(nn.Module):
    def __init__(self, classes, channels):
        super(ER_Net, self).__init__()
        self.encoder1 = ResEncoder3d(channels, 4)
        self.encoder2 = ResEncoder3d(4, 8)
        self.downsample = downsample()
        self.final = nn.Conv3d(8, classes, kernel_size=1)

    def forward(self, x):
        enc1 = self.encoder1(x)
        down1 = self.downsample(enc1)
        enc2 = self.encoder2(down1)
        return torch.sigmoid(self.final(enc2))


net = ER_Net(classes=1, channels=1)
optimizer = torch.optim.Adam(net.parameters(), lr=1e-4)
image = torch.randn(2, 1, 8, 8, 8)
label = (torch.rand(2, 1, 4, 4, 4) > 0.5).float()
optimizer.zero_grad()
pred = net(image)
loss = nn.BCELoss()(pred, label)
loss.backward()
optimizer.step()
