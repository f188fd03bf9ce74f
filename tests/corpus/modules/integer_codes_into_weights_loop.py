# torch: RuntimeError: data set to a tensor that requires gradients must be floating point or complex dtype
# Weight quantisation over the model's layers stores integer codes into `.data` of
# Parameters that still require grad (found by isinstance while iterating modules()).
import torch
import torch.nn as nn


def quantise(model, bits=8):
    levels = 2 ** (bits - 1) - 1
    for child in model.children():
        if isinstance(child, nn.Linear):
            scale = child.weight.data.abs().max() / levels
            child.weight.data = (child.weight.data / scale).round().long()  # expect: GL204


model = nn.Sequential(nn.Linear(4, 4), nn.Tanh(), nn.Linear(4, 1))
quantise(model)
