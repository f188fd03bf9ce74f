# torch: ok
# Layers built once: in __init__, lazily under `if self.proj is None`, layers without
# parameters built per call, and functional ops in forward.
import torch
import torch.nn as nn
import torch.nn.functional as F


class Lazy(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = None
        self.norm = nn.LayerNorm(4)

    def forward(self, x):
        if self.proj is None:
            self.proj = nn.Linear(x.shape[-1], 2)
        x = nn.ReLU()(self.norm(x))
        x = nn.Dropout(0.1)(x)
        return F.linear(self.proj(x), torch.eye(2))


model = Lazy()
model(torch.randn(3, 4))
assert list(model.parameters())
