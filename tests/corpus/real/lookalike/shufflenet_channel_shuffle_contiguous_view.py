# source: https://github.com/pytorch/vision/blob/main/torchvision/models/shufflenetv2.py
# expect: clean
import torch
import torch.nn as nn


def channel_shuffle(x, groups):
    batchsize, num_channels, height, width = x.size()
    channels_per_group = num_channels // groups
    x = x.view(batchsize, groups, channels_per_group, height, width)
    x = torch.transpose(x, 1, 2).contiguous()
    return x.view(batchsize, num_channels, height, width)


class InvertedResidual(nn.Module):
    def __init__(self, ch=8):
        super().__init__()
        self.branch2 = nn.Sequential(nn.Conv2d(ch // 2, ch // 2, 1), nn.BatchNorm2d(ch // 2), nn.ReLU(inplace=True))

    def forward(self, x):
        x1, x2 = x.chunk(2, dim=1)
        out = torch.cat((x1, self.branch2(x2)), dim=1)
        return channel_shuffle(out, 2)


block = InvertedResidual()
block(torch.randn(2, 8, 4, 4)).sum().backward()
