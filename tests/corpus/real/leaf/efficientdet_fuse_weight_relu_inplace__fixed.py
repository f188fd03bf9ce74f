# source: https://github.com/zylo117/Yet-Another-EfficientDet-Pytorch/issues/503
# expect: clean
import torch
import torch.nn as nn


class Swish(nn.Module):
    def forward(self, x):
        return x * torch.sigmoid(x)


class Fusefeature(nn.Module):
    def __init__(self, e=1e-4):
        super().__init__()
        self.e = e
        self.weight = nn.Parameter(torch.ones(2, dtype=torch.float32), requires_grad=True)
        self.weight_relu = nn.ReLU(inplace=True)
        self.swish = Swish()

    def forward(self, x):
        weight = self.weight_relu(self.weight.clone())
        weight = weight / (torch.sum(weight, dim=0) + self.e)
        return self.swish(weight[0] * x[0] + weight[1] * x[1])


class BiFPNTiny(nn.Module):
    def __init__(self, channels=4):
        super().__init__()
        self.conv_up = nn.Conv2d(channels, channels, 3, padding=1)
        self.fuse = Fusefeature()
        self.upsample = nn.Upsample(scale_factor=2, mode="nearest")

    def forward(self, p3, p4):
        return self.conv_up(self.fuse([p3, self.upsample(p4)]))


model = BiFPNTiny()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
p3, p4 = torch.randn(1, 4, 8, 8), torch.randn(1, 4, 4, 4)
optimizer.zero_grad()
loss = model(p3, p4).mean()
loss.backward()
optimizer.step()
