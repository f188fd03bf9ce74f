# Clamping a tanh output in place.
import torch
import torch.nn as nn


class Actor(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 2)

    def forward(self, state):
        action = self.fc(state).tanh()
        action.clamp_(-0.5, 0.5)  # expect: GL103
        return action


Actor()(torch.randn(4, 3)).sum().backward()
