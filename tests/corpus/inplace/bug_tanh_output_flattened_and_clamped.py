# A policy head squashes with tanh and flattens (reshape of a contiguous tensor is a view),
# then clamps the first action in place: tanh saved its output for backward.
import torch
import torch.nn as nn

head = nn.Linear(5, 6)
obs = torch.randn(4, 5)
actions = torch.tanh(head(obs)).reshape(4, 2, 3)
actions[:, 0].clamp_(-0.5, 0.5)  # expect: GL103
actions.pow(2).sum().backward()
