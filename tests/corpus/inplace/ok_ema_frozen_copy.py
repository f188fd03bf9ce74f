# EMA of weights into a frozen copy whose parameters do not require grad.
import copy

import torch
import torch.nn as nn

model = nn.Linear(4, 2)
ema = copy.deepcopy(model)
for p in ema.parameters():
    p.requires_grad_(False)


def update_ema(decay=0.99):
    for ema_p, p in zip(ema.parameters(), model.parameters()):
        ema_p.mul_(decay).add_(p.detach(), alpha=1 - decay)


model(torch.randn(3, 4)).sum().backward()
update_ema()
