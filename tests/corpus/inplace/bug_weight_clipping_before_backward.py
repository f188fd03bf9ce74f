# WGAN weight clipping placed between the forward pass and backward().
import copy

import torch
import torch.nn as nn

torch.manual_seed(0)
critic = nn.Sequential(nn.Linear(4, 4), nn.Tanh(), nn.Linear(4, 1))
reference = copy.deepcopy(critic)
x = torch.randn(8, 4)
loss = (critic(x) ** 2).mean()
for p in critic.parameters():
    p.data.clamp_(-0.01, 0.01)  # expect: GL102
loss.backward()
(reference(x) ** 2).mean().backward()
assert torch.allclose(critic[0].weight.grad, reference[0].weight.grad), "gradient from clipped"
