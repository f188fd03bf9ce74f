"""A submodule whose forward reads its input's first dim as the batch (`bsz, seq_len, _ =
hidden_states.shape`) and still hard-codes a batch size in a view: batch first holds."""
# torch: is invalid for input of size
import torch
from torch import nn


class Router(nn.Module):
    def __init__(self, hidden, keys):
        super().__init__()
        self.gate = nn.Linear(hidden, keys)

    def forward(self, hidden_states):
        bsz, seq_len, _ = hidden_states.shape
        logits = self.gate(hidden_states).view(16, seq_len, -1)  # expect: GL403
        return logits.softmax(-1)


class Layer(nn.Module):
    def __init__(self):
        super().__init__()
        self.router = Router(8, 4)

    def forward(self, x, mask):
        return self.router(x * mask)


Layer()(torch.randn(3, 5, 8), torch.ones(3, 5, 1))
