"""A sequence-first encoder output turned batch-first by transpose(0, 1), its sizes read
with .size(), then time and batch merged with view for a per-token classifier."""
# torch: view size is not compatible
import torch
import torch.nn as nn


class TokenHead(nn.Module):
    def __init__(self, hidden=6, classes=3):
        super().__init__()
        self.classifier = nn.Linear(hidden, classes)

    def forward(self, states):
        states = states.transpose(0, 1)
        batch, steps, hidden = states.size()
        logits = self.classifier(states.view(batch * steps, hidden))  # expect: GL401
        return logits.view(batch, steps, -1)


TokenHead()(torch.randn(7, 2, 6))
