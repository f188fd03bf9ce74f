# source: https://github.com/pytorch/pytorch/issues/4957
# expect: clean
import itertools

import torch
from torch.autograd import Variable

net = torch.nn.Linear(1, 1)
W = Variable(torch.zeros(1, 1), requires_grad=True)

optimizer = torch.optim.Adam([*net.parameters(), W])
x = torch.randn(4, 1)
loss = (net(x) @ W).pow(2).mean()
optimizer.zero_grad()
loss.backward()
optimizer.step()
