# The fixed twin: the activation after Tanh is not in place, so the output Tanh saved
# stays as it was; the in-place ReLU after BatchNorm edits an output nothing saved.
import torch
import torch.nn as nn


def make_layers(widths, in_width=4):
    layers = []
    for width in widths:
        layers += [nn.Linear(in_width, width), nn.Tanh(), nn.LeakyReLU(0.1)]
        layers += [nn.Linear(width, width), nn.BatchNorm1d(width), nn.ReLU(inplace=True)]
        in_width = width
    return nn.Sequential(*layers)


net = make_layers([8, 8])
net(torch.randn(2, 4)).sum().backward()
