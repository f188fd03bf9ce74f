# A hand-written softmax that normalises exp() in place.
import torch
import torch.nn as nn


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(5, 3)

    def forward(self, x):
        e = torch.exp(self.fc(x))
        e /= e.sum(dim=1, keepdim=True)  # expect: GL103
        return e


Classifier()(torch.randn(4, 5)).log().sum().backward()
