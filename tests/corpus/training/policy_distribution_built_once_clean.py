# torch: ok
# The distribution is rebuilt from the policy at every step.
import torch
import torch.nn as nn
from torch.distributions import Normal

policy = nn.Sequential(nn.Linear(3, 16), nn.Tanh(), nn.Linear(16, 1))
optimizer = torch.optim.Adam(policy.parameters(), lr=1e-3)
state = torch.randn(1, 3)
for step in range(3):
    dist = Normal(policy(state), torch.ones(1, 1))
    action = dist.sample()
    reward = -action.pow(2).sum()
    loss = -(dist.log_prob(action) * reward).sum()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
