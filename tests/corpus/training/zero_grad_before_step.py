# torch: raises the weights never changed
# Gradients accumulated over micro-batches, then cleared right before the step (a
# module-level script), and a helper whose zero_grad sits between backward and step.
import torch
import torch.nn as nn
import torch.nn.functional as F

model = nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
before = model.weight.detach().clone()
for chunk in torch.randn(3, 2, 4):
    loss = F.mse_loss(model(chunk), torch.zeros(2, 1))
    loss.backward()
optimizer.zero_grad()  # expect: GL504
optimizer.step()


def update(net, opt, x):
    net(x).pow(2).mean().backward()
    opt.zero_grad()  # expect: GL504
    opt.step()


update(model, optimizer, torch.randn(2, 4))
if torch.equal(before, model.weight.detach()):
    raise AssertionError("the weights never changed")
