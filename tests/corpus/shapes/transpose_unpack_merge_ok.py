"""The same modules made contiguous first, or using reshape: both run."""
import torch
import torch.nn as nn


class TokenHead(nn.Module):
    def __init__(self, hidden=6, classes=3):
        super().__init__()
        self.classifier = nn.Linear(hidden, classes)

    def forward(self, states):
        states = states.transpose(0, 1).contiguous()
        batch, steps, hidden = states.size()
        logits = self.classifier(states.view(batch * steps, hidden))
        return logits.view(batch, steps, -1)


class HeadMix(nn.Module):
    def forward(self, x):
        heads = x.transpose(1, 2)
        b, h, n, d = heads.shape
        return heads.reshape(b, h, n * d).sum(-1) + heads.view(b, h, n, d).sum((-1, -2))


TokenHead()(torch.randn(7, 2, 6))
HeadMix()(torch.randn(2, 5, 3, 4))
