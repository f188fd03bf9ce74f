# torch: ok
# use_reentrant=True is fine when an input requires grad (the output of a trained layer).
import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Linear(4, 4)
        self.block = nn.Linear(4, 4)

    def forward(self, x):
        return checkpoint(self.block, self.stem(x), use_reentrant=True)


model = Net()
model(torch.randn(2, 4)).sum().backward()
assert model.block.weight.grad is not None
