# torch: raises element 0 of tensors does not require grad and does not have a grad_fn
# The whole encoder runs under torch.no_grad() inside forward.
import torch
import torch.nn as nn


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(3, 4)

    def forward(self, x):
        with torch.no_grad():
            features = self.body(x)  # expect: GL202
        return features * 2


Encoder()(torch.randn(2, 3)).sum().backward()  # expect: GL202
