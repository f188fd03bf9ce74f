# torch: ok
# Modelled on the workaround in lm-sys/FastChat#581: the output of a *frozen* embedding is
# a leaf, so turning its requires_grad on is legal (and makes reentrant checkpoints work).
import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(10, 4)
        self.embed.requires_grad_(False)
        self.block = nn.Linear(4, 4)

    def forward(self, ids):
        hidden = self.embed(ids)
        hidden.requires_grad = True
        return checkpoint(self.block, hidden, use_reentrant=True)


model = Model()
model(torch.tensor([1, 2])).sum().backward()
assert model.block.weight.grad is not None
