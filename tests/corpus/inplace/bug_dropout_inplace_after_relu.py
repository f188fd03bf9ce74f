# In-place dropout of a ReLU output (BierOne/bottom-up-attention-vqa#6).
import torch
import torch.nn as nn
import torch.nn.functional as F


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)
        self.out = nn.Linear(8, 2)

    def forward(self, x):
        h = F.relu(self.fc(x))
        h = F.dropout(h, 0.5, True, True)  # expect: GL103
        return self.out(h)


Classifier()(torch.randn(4, 8)).sum().backward()
