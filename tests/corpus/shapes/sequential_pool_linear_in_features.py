"""A Sequential whose Linear expects one channel's features: the pooled map has 8 * 2 * 2."""
# torch: mat1 and mat2 shapes cannot be multiplied
import torch
import torch.nn as nn


def make_model(channels=8):
    return nn.Sequential(
        nn.Conv2d(3, channels, 3, stride=2, padding=1),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Flatten(),
        nn.Linear(channels, 4),
    )


model = make_model()
logits = model(torch.randn(2, 3, 8, 8))  # expect: GL404
