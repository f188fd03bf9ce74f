# torch: raises Trying to backward through the graph a second time
# A helper returns the categorical policy of a state; the agent keeps it and learns from
# two rewards with two backwards through the same logits.
import torch
import torch.nn as nn
from torch.distributions import Categorical


def make_policy(net, obs):
    return Categorical(logits=net(obs))


net = nn.Linear(4, 3)
optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
pi = make_policy(net, torch.randn(4))
for reward in (1.0, -0.5):
    action = pi.sample()
    optimizer.zero_grad()
    (-pi.log_prob(action) * reward).backward()  # expect: GL305
    optimizer.step()
