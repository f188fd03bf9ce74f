# source: https://github.com/huggingface/accelerate/issues/1299
# expect: clean
import torch
import torch.nn as nn

model = nn.Linear(3, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.0)
loss_function = nn.MSELoss()
gradient_accumulation_steps = 2
dataloader = [(torch.randn(4, 3), torch.randn(4, 1)) for _ in range(4)]
seen = []

for index, batch in enumerate(dataloader):
    inputs, targets = batch
    outputs = model(inputs)
    loss = loss_function(outputs, targets) / gradient_accumulation_steps
    loss.backward()
    if (index + 1) % gradient_accumulation_steps == 0:
        seen.append(model.weight.grad.clone())
        optimizer.step()
        optimizer.zero_grad()

model.zero_grad()
for inputs, targets in dataloader[:2]:
    (loss_function(model(inputs), targets) / gradient_accumulation_steps).backward()
assert torch.allclose(seen[0], model.weight.grad)
