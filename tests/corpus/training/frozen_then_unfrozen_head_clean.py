# torch: ok
# Linear probing: everything frozen, then the head switched back on.
import torch
import torch.nn as nn

model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 3))
model.requires_grad_(False)
for p in model[2].parameters():
    p.requires_grad = True
optimizer = torch.optim.SGD(model[2].parameters(), lr=0.1)
x, y = torch.randn(4, 8), torch.tensor([0, 1, 2, 0])
loss = nn.functional.cross_entropy(model(x), y)
loss.backward()
optimizer.step()
