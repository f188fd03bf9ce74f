# source: https://github.com/pytorch/pytorch/issues/3890
# expect: clean
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
        s.retain_grad()
        self.saved = s
        return torch.sum(s)


model = Probe()
x = Variable(torch.zeros(3, 3), requires_grad=True)
total = model(x)
total.backward()
assert model.saved.grad is not None
