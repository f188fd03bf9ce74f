"""The Linear sized for the pooled map (8 channels of 2 x 2)."""
import torch
import torch.nn as nn


def make_model(channels=8):
    return nn.Sequential(
        nn.Conv2d(3, channels, 3, stride=2, padding=1),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Flatten(),
        nn.Linear(channels * 2 * 2, 4),
    )


model = make_model()
logits = model(torch.randn(2, 3, 8, 8))
