# torch: ok
# Freezing done right, and a module class with a `requires_grad` setting of its own.
import torch
import torch.nn as nn


class Embedding(nn.Module):
    def __init__(self, requires_grad=True):
        super().__init__()
        self.requires_grad = requires_grad
        self.table = nn.Parameter(torch.randn(5, 3), requires_grad=requires_grad)

    def forward(self, ids):
        table = self.table if self.requires_grad else self.table.detach()
        return table[ids]


model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
model[0].requires_grad_(False)
for p in model[2].parameters():
    p.requires_grad = False
embedding = Embedding()
embedding.requires_grad = False
assert not model[0].weight.requires_grad
