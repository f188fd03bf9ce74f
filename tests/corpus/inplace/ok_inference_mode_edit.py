# In-place edits of a parameter inside torch.inference_mode().
import torch
import torch.nn as nn

model = nn.Linear(4, 2)
with torch.inference_mode():
    model.weight.mul_(0.5)
    model.bias.zero_()
model(torch.randn(3, 4)).sum().backward()
