# source: https://github.com/pytorch/pytorch/issues/3890
# expect: you can only change requires_grad flags of leaf variables
# buggy-line: 10
# mechanism: `s.requires_grad = True` on the output of `torch.sigmoid` (not a leaf) before `retain_grad()`
import torch
from torch.autograd import Variable

x = Variable(torch.zeros(3, 3), requires_grad=True)
s = torch.sigmoid(x)
s.requires_grad = True
s.retain_grad()
total = torch.sum(s)
total.backward()
assert s.grad is not None
