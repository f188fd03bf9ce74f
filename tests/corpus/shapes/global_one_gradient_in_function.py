"""A module-level `one = torch.FloatTensor([1])` used as the gradient of a mean inside train()."""
# torch: Mismatch in shape
import torch
import torch.nn as nn

critic = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 1))
one = torch.FloatTensor([1])
mone = one * -1


def train(steps=2):
    for _ in range(steps):
        cost = critic(torch.randn(4, 6)).mean()
        cost.backward(mone)  # expect: GL301


train()
