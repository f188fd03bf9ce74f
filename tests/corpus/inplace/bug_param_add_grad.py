# `p.add_(p.grad, alpha=-lr)` over model.parameters() (pytorch/examples#779).
import torch
import torch.nn as nn

model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
x, y = torch.randn(16, 4), torch.randn(16, 1)
loss = nn.functional.mse_loss(model(x), y)
model.zero_grad()
loss.backward()
for p in model.parameters():
    p.add_(p.grad, alpha=-0.01)  # expect: GL101
