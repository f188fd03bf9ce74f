# torch: AssertionError: adapter inside the checkpoint got no gradient
# Modelled on microsoft/LoRA#120 and huggingface/peft#1142: a frozen embedding feeds a
# checkpointed block holding the only trainable adapter; the reentrant default drops it.
import warnings

import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint

warnings.simplefilter("ignore")


class Block(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.frozen = nn.Linear(width, width)
        self.frozen.requires_grad_(False)
        self.adapter = nn.Linear(width, width, bias=False)

    def forward(self, hidden):
        return self.frozen(hidden) + self.adapter(hidden)


class Model(nn.Module):
    def __init__(self, vocab, width):
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        self.embed.weight.requires_grad_(False)
        self.block = Block(width)
        self.head = nn.Linear(width, 2)

    def forward(self, ids):
        hidden = self.embed(ids)
        hidden = checkpoint(self.block, hidden)  # expect: GL205
        return self.head(hidden)


model = Model(10, 4)
model(torch.tensor([[1, 2, 3]])).sum().backward()
if model.block.adapter.weight.grad is None:
    raise AssertionError("adapter inside the checkpoint got no gradient")
