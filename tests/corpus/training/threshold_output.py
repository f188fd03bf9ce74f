# torch: raises element 0 of tensors does not require grad and does not have a grad_fn
# A hard threshold as the module's output: the comparison has no gradient.
import torch
import torch.nn as nn


class Gate(nn.Module):
    def __init__(self):
        super().__init__()
        self.score = nn.Linear(3, 1)

    def forward(self, x):
        s = torch.sigmoid(self.score(x))
        return (s > 0.5).float()  # expect: GL203


out = Gate()(torch.randn(4, 3))
nn.functional.binary_cross_entropy(out, torch.ones(4, 1)).backward()
