# source: https://github.com/pytorch/pytorch/issues/4412
# expect: clean
import torch
import torch.nn as nn


class Network(nn.Module):
    def __init__(self,):
        super(Network, self).__init__()
        self.in_channels = 4
        self.convs = nn.ModuleList([nn.Sequential(
            nn.Conv2d(in_channels=self.in_channels, out_channels=self.in_channels,
                      kernel_size=3, stride=1, padding=1),
            nn.Conv2d(in_channels=self.in_channels, out_channels=self.in_channels,
                      kernel_size=3, stride=1, padding=1),
        ),
        nn.Sequential(
            nn.Conv2d(in_channels=self.in_channels, out_channels=self.in_channels,
                      kernel_size=3, stride=1, padding=1),
            nn.Conv2d(in_channels=self.in_channels, out_channels=self.in_channels,
                      kernel_size=3, stride=1, padding=1),
        ),])
    def forward(self, x):
        output = self.convs[0](x)
        output = self.convs[1](x)
        return output

net = Network()
net.double()  # stands for net.cuda(): a dtype move takes the same path as a device move
output = net(torch.randn(1, 4, 8, 8, dtype=torch.float64))
