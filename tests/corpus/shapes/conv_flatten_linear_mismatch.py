"""Linear in_features that does not follow the flattened size (mrdbourke/pytorch-deep-learning#763)."""
# torch: mat1 and mat2 shapes cannot be multiplied
import torch
import torch.nn as nn


class Classifier(nn.Module):
    def __init__(self, hidden_units, classes):
        super().__init__()
        self.fc = nn.Linear(hidden_units, classes)

    def forward(self, x):
        x = x.flatten(1)
        return self.fc(x)


model = Classifier(10, 3)
features = torch.randn(4, 10, 7, 7).flatten(1)
logits = model.fc(features)  # expect: GL404
