# source: https://github.com/pytorch/pytorch/issues/11192
# expect: clean
import torch
import torch.nn as nn
from torch.distributions import Bernoulli


class CoinPolicy(nn.Module):
    def __init__(self):
        super().__init__()
        self.logit = nn.Parameter(torch.tensor(-1.0))

    def dist(self):
        return Bernoulli(torch.sigmoid(self.logit))


policy = CoinPolicy()
opt = torch.optim.SGD(policy.parameters(), lr=0.1)

episodes = [(torch.tensor(1.0), 2.0), (torch.tensor(0.0), 3.0)]
for action, reward in episodes:
    opt.zero_grad()
    pi = policy.dist()  # a fresh distribution, and graph, per update
    loss = -reward * pi.log_prob(action)
    loss.backward()
    opt.step()
