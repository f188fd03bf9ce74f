# A reset helper zeroes the biases of the conv and linear layers it finds, with no
# `torch.no_grad()`: the biases are Parameters that require grad.
import torch
import torch.nn as nn


def reset_biases(net, value=0.0):
    for layer in net.modules():
        if not isinstance(layer, nn.BatchNorm2d) and isinstance(layer, (nn.Conv2d, nn.Linear)):
            layer.bias.fill_(value)  # expect: GL101


net = nn.Sequential(
    nn.Conv2d(3, 4, 3),
    nn.BatchNorm2d(4),
    nn.ReLU(),
    nn.AdaptiveAvgPool2d(1),
    nn.Flatten(),
    nn.Linear(4, 2),
)
reset_biases(net)
net(torch.randn(2, 3, 8, 8)).sum().backward()
