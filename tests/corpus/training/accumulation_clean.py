# torch: ok
# Gradient accumulation on purpose: step and zero_grad under the same modulo condition.
import torch
import torch.nn as nn

model = nn.Linear(5, 1)
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
accumulation_steps = 2
optimizer.zero_grad()
for i in range(6):
    x, y = torch.randn(3, 5), torch.randn(3, 1)
    loss = nn.functional.mse_loss(model(x), y) / accumulation_steps
    loss.backward()
    if (i + 1) % accumulation_steps == 0:
        optimizer.step()
        optimizer.zero_grad()
