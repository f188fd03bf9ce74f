# torch: ok
# "loss does not decrease": the loss is a fresh leaf made from .item(); backward runs but
# the model's parameters get no gradient.
import torch
import torch.nn as nn

model = nn.Linear(3, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
optimizer.zero_grad()
out = model(torch.randn(4, 3))
value = float(out.pow(2).mean())  # expect: GL201
loss = torch.tensor(value, requires_grad=True)
loss.backward()
optimizer.step()
assert model.weight.grad is None
