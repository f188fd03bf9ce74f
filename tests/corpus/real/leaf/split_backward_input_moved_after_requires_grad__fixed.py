# source: https://github.com/pytorch/pytorch/issues/8287
# expect: clean
import torch
import torch.nn as nn

# stands for device='cuda:0': the leaf is made where it is used
x = torch.randn(2, 2, requires_grad=True, dtype=torch.float64)
t = torch.randn(2, 2).double()
loss_func = nn.MSELoss().double()
l1 = nn.Sequential(*[nn.Linear(2, 2) for _ in range(3)]).double()
l2 = nn.Sequential(*[nn.Linear(2, 2) for _ in range(3)]).double()
h1 = l1(x)
h2 = h1.detach().requires_grad_()
h3 = l2(h2)
l = loss_func(h3, t)
l.backward()
print('h2:', h2.grad)
h1.backward(gradient=h2.grad)
print('x:', x.grad)
assert x.grad is not None
