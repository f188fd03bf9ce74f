# torch: ok
# The same two losses, summed into one backward.
import torch
import torch.nn as nn


class ActorCritic(nn.Module):
    def __init__(self):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(4, 16), nn.Tanh())
        self.actor = nn.Linear(16, 2)
        self.critic = nn.Linear(16, 1)

    def forward(self, obs):
        h = self.trunk(obs)
        return self.actor(h), self.critic(h)


def losses(model, obs, actions, returns):
    logits, values = model(obs)
    log_probs = torch.log_softmax(logits, -1).gather(1, actions[:, None]).squeeze(1)
    advantage = returns - values.squeeze(1)
    return -(log_probs * advantage.detach()).mean(), advantage.pow(2).mean()


model = ActorCritic()
actor_opt = torch.optim.Adam(model.parameters(), lr=1e-3)
obs, actions, returns = torch.randn(5, 4), torch.randint(0, 2, (5,)), torch.randn(5)
actor_loss, critic_loss = losses(model, obs, actions, returns)
critic_loss.backward(retain_graph=True)
actor_loss.backward()
actor_opt.step()
