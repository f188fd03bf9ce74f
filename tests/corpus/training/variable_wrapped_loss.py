# torch: ok
# Legacy code wraps the loss in Variable(..., requires_grad=True): in torch 2.x Variable()
# returns a tensor without history, so backward runs and the model gets no gradient.
import torch
import torch.nn as nn
from torch.autograd import Variable

model = nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
optimizer.zero_grad()
error = (model(torch.randn(3, 4)) - 1).pow(2).mean()
loss = Variable(error, requires_grad=True)  # expect: GL201
loss.backward()
optimizer.step()
assert model.weight.grad is None
