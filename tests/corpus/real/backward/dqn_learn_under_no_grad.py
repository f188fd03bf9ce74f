# source: https://github.com/pytorch/pytorch/issues/34535
# expect: element 0 of tensors does not require grad and does not have a grad_fn
# buggy-line: 43
# also-line: 37
import random

import torch
import torch.nn as nn
import torch.nn.functional as F

GAMMA = 0.9
BATCH_SIZE = 4


class DQN(nn.Module):
    def __init__(self, n_obs=4, n_actions=2):
        super().__init__()
        self.fc1 = nn.Linear(n_obs, 16)
        self.fc2 = nn.Linear(16, n_actions)

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x)))


policy_net, target_net = DQN(), DQN()
target_net.load_state_dict(policy_net.state_dict())
optimizer = torch.optim.RMSprop(policy_net.parameters(), lr=1e-3)
memory = [(torch.randn(4), random.randrange(2), torch.randn(4), random.random()) for _ in range(8)]


def optimize_model():
    batch = random.sample(memory, BATCH_SIZE)
    states = torch.stack([b[0] for b in batch])
    actions = torch.tensor([b[1] for b in batch])
    next_states = torch.stack([b[2] for b in batch])
    rewards = torch.tensor([b[3] for b in batch])
    with torch.no_grad():
        state_action_values = policy_net(states).gather(1, actions.unsqueeze(1)).squeeze(1)
        next_state_values = target_net(next_states).max(1)[0]
        expected = rewards + GAMMA * next_state_values
        loss = F.smooth_l1_loss(state_action_values, expected)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()


for episode in range(2):
    optimize_model()
