# A GPT-2 style scaled init written after construction, outside no_grad: each Linear
# met in `model.modules()` has its weight (a Parameter) edited in place.
import torch
import torch.nn as nn


class Block(nn.Module):
    def __init__(self, width=8, layers=2):
        super().__init__()
        self.attn = nn.Linear(width, width)
        self.proj = nn.Linear(width, width)
        self.norm = nn.LayerNorm(width)
        self.layers = layers

    def forward(self, x):
        return self.proj(torch.relu(self.attn(self.norm(x))))


model = Block()
for name, module in model.named_modules():
    if isinstance(module, nn.Linear) and name.endswith("proj"):
        module.weight.mul_(1 / (2 * model.layers) ** 0.5)  # expect: GL101
out = model(torch.randn(4, 8)).sum()
out.backward()
