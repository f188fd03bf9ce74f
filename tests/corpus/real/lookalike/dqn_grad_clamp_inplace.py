# source: https://github.com/pytorch/tutorials/blob/main/intermediate_source/reinforcement_q_learning.py
# expect: clean
# note: in-place clamp of `param.grad` (gradients need no grad) between backward() and step()
import random
from collections import deque, namedtuple

import torch
import torch.nn as nn
import torch.optim as optim

Transition = namedtuple("Transition", ("state", "action", "next_state", "reward"))
BATCH_SIZE, GAMMA = 4, 0.99


class DQN(nn.Module):
    def __init__(self, n_observations, n_actions):
        super().__init__()
        self.layer1 = nn.Linear(n_observations, 16)
        self.layer2 = nn.Linear(16, n_actions)

    def forward(self, x):
        return self.layer2(torch.relu(self.layer1(x)))


policy_net = DQN(4, 2)
target_net = DQN(4, 2)
target_net.load_state_dict(policy_net.state_dict())
optimizer = optim.RMSprop(policy_net.parameters())
memory = deque(maxlen=100)
for _ in range(8):
    memory.append(Transition(torch.randn(1, 4), torch.tensor([[random.randrange(2)]]), torch.randn(1, 4), torch.randn(1)))


def optimize_model():
    transitions = random.sample(memory, BATCH_SIZE)
    batch = Transition(*zip(*transitions))
    state_batch = torch.cat(batch.state)
    action_batch = torch.cat(batch.action)
    reward_batch = torch.cat(batch.reward)
    state_action_values = policy_net(state_batch).gather(1, action_batch)
    with torch.no_grad():
        next_state_values = target_net(torch.cat(batch.next_state)).max(1)[0]
    expected_state_action_values = (next_state_values * GAMMA) + reward_batch
    loss = nn.functional.smooth_l1_loss(state_action_values, expected_state_action_values.unsqueeze(1))
    optimizer.zero_grad()
    loss.backward()
    for param in policy_net.parameters():
        param.grad.data.clamp_(-1, 1)
    optimizer.step()


for _ in range(2):
    optimize_model()
