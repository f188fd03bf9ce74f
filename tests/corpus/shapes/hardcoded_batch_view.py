"""A batch size written into forward: the batch of 10 is silently regrouped into rows of 30."""
# torch: mat1 and mat2 shapes cannot be multiplied
import torch
import torch.nn as nn

BATCH_SIZE = 64


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3 * 8 * 8, 10)

    def forward(self, x):
        x = x.view(BATCH_SIZE, -1)  # expect: GL403
        return self.fc(x)  # expect: GL404


Net()(torch.randn(10, 3, 8, 8))
