# Sinusoidal table written into a Parameter in __init__ (Atcold/NYU-DLSP20#765).
import math

import torch
import torch.nn as nn


class PositionalEncoding(nn.Module):
    def __init__(self, max_len, d_model):
        super().__init__()
        self.table = nn.Parameter(torch.zeros(max_len, d_model))
        position = torch.arange(max_len).unsqueeze(1)
        div = torch.exp(torch.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))
        self.table[:, 0::2] = torch.sin(position * div)  # expect: GL101
        self.table[:, 1::2] = torch.cos(position * div)  # expect: GL101

    def forward(self, x):
        return x + self.table[: x.size(1)]


PositionalEncoding(16, 8)
