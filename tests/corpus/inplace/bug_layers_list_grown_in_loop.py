# A stack built the way VGG's make_layers builds one: each pass of the loop adds the
# same triple to a plain list, and nn.Sequential(*layers) chains them. The in-place
# LeakyReLU overwrites the Tanh output Tanh saved for its backward.
import torch
import torch.nn as nn


def make_layers(widths, in_width=4):
    layers = []
    for width in widths:
        layers += [nn.Linear(in_width, width), nn.Tanh(), nn.LeakyReLU(0.1, inplace=True)]  # expect: GL103
        in_width = width
    return nn.Sequential(*layers)


net = make_layers([8, 8])
net(torch.randn(2, 4)).sum().backward()
