# torch: raises Trying to backward through the graph a second time
# REINFORCE with a Gaussian policy: the action distribution is built from the policy
# network once per episode, and every step's update backpropagates through it.
import torch
import torch.nn as nn
from torch.distributions import Normal

policy = nn.Sequential(nn.Linear(3, 16), nn.Tanh(), nn.Linear(16, 1))
optimizer = torch.optim.Adam(policy.parameters(), lr=1e-3)
state = torch.randn(1, 3)
dist = Normal(policy(state), torch.ones(1, 1))
for step in range(3):
    action = dist.sample()
    reward = -action.pow(2).sum()
    loss = -(dist.log_prob(action) * reward).sum()
    optimizer.zero_grad()
    loss.backward()  # expect: GL305
    optimizer.step()
