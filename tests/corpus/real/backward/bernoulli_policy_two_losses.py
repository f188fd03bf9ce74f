# source: https://github.com/pytorch/pytorch/issues/11192
# expect: Trying to backward through the graph a second time
# buggy-line: 27
# also-line: 22
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

pi = policy.dist()
episodes = [(torch.tensor(1.0), 2.0), (torch.tensor(0.0), 3.0)]
for action, reward in episodes:
    opt.zero_grad()
    loss = -reward * pi.log_prob(action)
    loss.backward()
    opt.step()
