# source: https://github.com/pytorch/ignite/issues/583
# expect: clean
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(5, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.0)
criterion = nn.MSELoss()
accumulation_steps = 4
data = [(torch.randn(4, 5), torch.randn(4, 1)) for _ in range(8)]
stepped = []


def update_fn(iteration, batch):
    model.train()

    x, y = batch
    y_pred = model(x)
    loss = criterion(y_pred, y) / accumulation_steps
    loss.backward()

    if iteration % accumulation_steps == 0:
        stepped.append(model.weight.grad.clone())
        optimizer.step()
        optimizer.zero_grad()

    return loss.item()


for iteration, batch in enumerate(data, start=1):
    update_fn(iteration, batch)

model.zero_grad()
for x, y in data[4:8]:
    (criterion(model(x), y) / accumulation_steps).backward()
assert torch.allclose(stepped[1], model.weight.grad)
