# torch: ok
# The policy is asked again for each reward: each backward has a graph of its own.
import torch
import torch.nn as nn
from torch.distributions import Categorical


def make_policy(net, obs):
    return Categorical(logits=net(obs))


net = nn.Linear(4, 3)
optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
obs = torch.randn(4)
for reward in (1.0, -0.5):
    pi = make_policy(net, obs)
    action = pi.sample()
    optimizer.zero_grad()
    (-pi.log_prob(action) * reward).backward()
    optimizer.step()
