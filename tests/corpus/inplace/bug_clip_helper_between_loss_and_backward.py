# A weight-clipping helper runs after the loss is built and before backward(): the
# gradient is computed from weights the forward pass never used.
import copy

import torch
import torch.nn as nn


def clip_weights(model, bound=0.01):
    for p in model.parameters():
        p.data.clamp_(-bound, bound)  # expect: GL102


torch.manual_seed(0)
critic = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
reference = copy.deepcopy(critic)
real = torch.randn(16, 4)
loss = -critic(real).mean()
clip_weights(critic)
loss.backward()
(-reference(real).mean()).backward()
assert torch.allclose(critic[0].weight.grad, reference[0].weight.grad)
