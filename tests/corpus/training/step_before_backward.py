# torch: ok
# step() before backward(), zero_grad() at the top: every gradient is wiped unused and
# the parameters never move.
import torch
import torch.nn as nn

model = nn.Linear(3, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
before = model.weight.detach().clone()


def train_epoch(batches):
    for x, y in batches:
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        optimizer.step()  # expect: GL504
        loss.backward()


train_epoch([(torch.randn(4, 3), torch.randn(4, 1))] * 3)
assert torch.equal(before, model.weight.detach())
