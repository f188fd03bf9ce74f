# torch: ok
# A helper scores the generator's output with the critic; the critic's optimizer steps
# between that forward and its backward, so the step applies nothing of it.
import torch
import torch.nn as nn


def critic_score(critic, generator, z):
    return critic(generator(z)).mean()


generator, critic = nn.Linear(4, 6), nn.Linear(6, 1)
critic_opt = torch.optim.SGD(critic.parameters(), lr=0.1)
before = critic.weight.detach().clone()
score = critic_score(critic, generator, torch.randn(5, 4))
critic_opt.step()  # expect: GL504
score.backward()
assert torch.equal(before, critic.weight.detach())
