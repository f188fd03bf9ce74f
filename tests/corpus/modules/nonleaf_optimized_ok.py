# torch: ok
# Leaves handed to optimizers: scaled before requires_grad, Parameters, module parameters,
# Variables, detached copies, in-place scaling under no_grad, float casts of float leaves.
import torch
import torch.nn as nn
from torch.autograd import Variable

model = nn.Linear(4, 4)
a = (torch.randn(3) * 0.01).requires_grad_()
b = nn.Parameter(torch.randn(3) * 0.01)
c = Variable(torch.randn(3) * 2, requires_grad=True)
d = (a * 2).detach().clone().requires_grad_(True)
e = torch.randn(3, requires_grad=True)
with torch.no_grad():
    e *= 0.01
f = torch.randn(3, requires_grad=True).float()
optimizer = torch.optim.SGD([a, b, c, d, e, f], lr=0.1)
trainable = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=1e-3)
groups = torch.optim.SGD([{"params": model.parameters()}, {"params": [a]}], lr=0.1)
h = torch.randn(3, requires_grad=True) * 2
h.retain_grad()
h.sum().backward()
print(h.grad)
