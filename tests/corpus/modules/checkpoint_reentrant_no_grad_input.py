# torch: AssertionError: the checkpointed block got no gradient
# use_reentrant=True on blocks whose inputs require no grad (features of a backbone run
# under no_grad, raw data through checkpoint_sequential): their weights get no gradients.
import warnings

import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint, checkpoint_sequential

warnings.simplefilter("ignore")


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Embedding(10, 4)
        self.block = nn.Linear(4, 4)
        self.stages = nn.Sequential(nn.Linear(4, 4), nn.ReLU(), nn.Linear(4, 4))

    def forward(self, ids, features):
        with torch.no_grad():
            frozen = self.backbone(ids)
        hidden = checkpoint(self.block, frozen, use_reentrant=True)  # expect: GL205
        extra = checkpoint_sequential(self.stages, 2, features, use_reentrant=True)  # expect: GL205
        return hidden.sum() + extra.sum()


model = Encoder()
model(torch.tensor([1, 2]), torch.randn(2, 4)).backward()
if model.block.weight.grad is None:
    raise AssertionError("the checkpointed block got no gradient")
