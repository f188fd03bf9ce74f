# The same stack grown with append: the list holds the Sigmoid, then the in-place ELU
# of the same pass; the ELU overwrites the output Sigmoid saved for its backward.
import torch
import torch.nn as nn


class Tower(nn.Module):
    def __init__(self, depth=3, width=6):
        super().__init__()
        blocks = []
        for _ in range(depth):
            blocks.append(nn.Linear(width, width))
            blocks.append(nn.Sigmoid())
            blocks.append(nn.ELU(inplace=True))  # expect: GL103
        self.body = nn.Sequential(*blocks)

    def forward(self, x):
        return self.body(x)


Tower()(torch.randn(2, 6)).sum().backward()
