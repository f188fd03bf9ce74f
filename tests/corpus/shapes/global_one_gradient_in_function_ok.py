"""The scalar's own gradient: `backward()` (or a 0-dim `-torch.ones(())`)."""
import torch
import torch.nn as nn

critic = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 1))
mone = -torch.ones(())


def train(steps=2):
    for _ in range(steps):
        cost = critic(torch.randn(4, 6)).mean()
        cost.backward(mone)


train()
