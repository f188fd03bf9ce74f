# A parameter update in a function decorated with @torch.no_grad().
import torch
import torch.nn as nn


@torch.no_grad()
def sgd_step(model, lr):
    for p in model.parameters():
        p.add_(p.grad, alpha=-lr)


model = nn.Linear(4, 1)
model(torch.randn(3, 4)).sum().backward()
sgd_step(model, 0.1)
