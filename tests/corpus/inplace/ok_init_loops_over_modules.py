# Initialisation loops over `model.modules()` that torch accepts: nn.init (it runs
# under no_grad), edits under no_grad, writes through `.data`, and in-place edits of a
# model whose parameters were all frozen first.
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3)
        self.bn = nn.BatchNorm2d(4)
        self.fc = nn.Linear(4, 2)
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out")
                if m.bias is not None:
                    nn.init.zeros_(m.bias)
            elif isinstance(m, nn.BatchNorm2d):
                m.weight.data.fill_(1)
                m.bias.data.zero_()

    def forward(self, x):
        return self.fc(torch.relu(self.bn(self.conv(x))).mean((2, 3)))


def rescale(model, factor):
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, nn.Linear):
                m.weight.mul_(factor)


model = Net()
rescale(model, 0.5)
teacher = Net()
teacher.requires_grad_(False)
for m in teacher.modules():
    if isinstance(m, nn.Conv2d):
        m.weight.clamp_(-1, 1)
model(torch.randn(2, 3, 8, 8)).sum().backward()
