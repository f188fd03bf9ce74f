# source: https://github.com/ChenRocks/fast_abs_rl/issues/73
# expect: clean
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import autograd
from torch.distributions import Categorical


class ActorCritic(nn.Module):
    def __init__(self, d=6, n_actions=4):
        super().__init__()
        self.actor = nn.Linear(d, n_actions)
        self.critic = nn.Linear(d, 1)

    def forward(self, states):
        return F.softmax(self.actor(states), dim=-1), self.critic(states).squeeze(-1)


def a2c_train_step(agent, opt, gamma=0.95, n_steps=3):
    states = torch.randn(n_steps, 6)
    probs, baselines = agent(states)
    dists = [Categorical(p) for p in probs]
    actions = [d.sample() for d in dists]
    rewards = [0.1, 0.0, 1.0]
    returns, R = [], 0.0
    for r in reversed(rewards):
        R = r + gamma * R
        returns.insert(0, R)
    reward = torch.tensor(returns)
    advantage = reward - baselines.detach()
    losses = [-d.log_prob(a) * (adv / len(dists)) for d, a, adv in zip(dists, actions, advantage)]
    critic_loss = F.mse_loss(baselines, reward)
    opt.zero_grad()
    autograd.backward(
        [critic_loss] + losses,
        [torch.ones_like(critic_loss)] + [torch.ones_like(l) for l in losses],
    )
    opt.step()


agent = ActorCritic()
opt = torch.optim.Adam(agent.parameters(), lr=1e-3)
for _ in range(2):
    a2c_train_step(agent, opt)
