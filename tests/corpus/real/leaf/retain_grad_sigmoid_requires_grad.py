# source: https://github.com/pytorch/pytorch/issues/3890
# expect: you can only change requires_grad flags of leaf variables
# buggy-line: 18
# mechanism: `s.requires_grad = True` on the output of `torch.sigmoid` (not a leaf) in forward, before `retain_grad()` to inspect the hidden activation's gradient
import torch
import torch.nn as nn
from torch.autograd import Variable


class Probe(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 3)
        self.saved = None

    def forward(self, x):
        s = torch.sigmoid(self.fc(x))
        s.requires_grad = True
        s.retain_grad()
        self.saved = s
        return torch.sum(s)


model = Probe()
x = Variable(torch.zeros(3, 3), requires_grad=True)
total = model(x)
total.backward()
assert model.saved.grad is not None
