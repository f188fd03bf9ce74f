# Zeroing gradients in place: `.grad` is not a leaf that requires grad.
import torch
import torch.nn as nn

model = nn.Linear(4, 1)
model(torch.randn(3, 4)).sum().backward()
for p in model.parameters():
    p.grad.zero_()
    p.grad.data.mul_(0)
