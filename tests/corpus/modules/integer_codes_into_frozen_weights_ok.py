# torch: ok
# Integer codes are stored in the weights only after the model was frozen, and a
# float copy goes into the layers of another model: torch accepts both.
import torch
import torch.nn as nn


def quantise(model, bits=8):
    levels = 2 ** (bits - 1) - 1
    for child in model.children():
        if isinstance(child, nn.Linear):
            scale = child.weight.data.abs().max() / levels
            child.weight.data = (child.weight.data / scale).round().to(torch.int8)


def rescale(model):
    for child in model.children():
        if isinstance(child, nn.Linear):
            child.weight.data = child.weight.data.round().float()


model = nn.Sequential(nn.Linear(4, 4), nn.Tanh(), nn.Linear(4, 1))
rescale(model)
model.requires_grad_(False)
quantise(model)
