# TD3's target policy smoothing (higgsfield/RL-Adventure-2 6.td3.ipynb, td3_update): the
# noise is added in place to the target policy's tanh output, which tanh saved; but every
# value computed from it reaches the loss through `expected_q_value.detach()`, so no
# backward runs tanh's node and nothing raises.
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim

device = torch.device("cpu")


class ValueNetwork(nn.Module):
    def __init__(self, num_inputs, num_actions, hidden_size, init_w=3e-3):
        super(ValueNetwork, self).__init__()
        self.linear1 = nn.Linear(num_inputs + num_actions, hidden_size)
        self.linear2 = nn.Linear(hidden_size, 1)

    def forward(self, state, action):
        x = torch.cat([state, action], 1)
        x = F.relu(self.linear1(x))
        x = self.linear2(x)
        return x


class PolicyNetwork(nn.Module):
    def __init__(self, num_inputs, num_actions, hidden_size, init_w=3e-3):
        super(PolicyNetwork, self).__init__()
        self.linear1 = nn.Linear(num_inputs, hidden_size)
        self.linear2 = nn.Linear(hidden_size, num_actions)

    def forward(self, state):
        x = F.relu(self.linear1(state))
        x = F.tanh(self.linear2(x))
        return x


value_net1 = ValueNetwork(3, 2, 16)
policy_net = PolicyNetwork(3, 2, 16)
target_value_net1 = ValueNetwork(3, 2, 16)
target_policy_net = PolicyNetwork(3, 2, 16)
value_criterion = nn.MSELoss()
value_optimizer1 = optim.Adam(value_net1.parameters(), lr=1e-3)
policy_optimizer = optim.Adam(policy_net.parameters(), lr=1e-3)


def td3_update(step, batch_size, gamma=0.99, noise_std=0.2, noise_clip=0.5, policy_update=2):
    state = torch.FloatTensor(np.random.randn(batch_size, 3)).to(device)
    next_state = torch.FloatTensor(np.random.randn(batch_size, 3)).to(device)
    action = torch.FloatTensor(np.random.randn(batch_size, 2)).to(device)
    reward = torch.FloatTensor(np.random.randn(batch_size)).unsqueeze(1).to(device)
    done = torch.FloatTensor(np.float32(np.zeros(batch_size))).unsqueeze(1).to(device)

    next_action = target_policy_net(next_state)
    noise = torch.normal(torch.zeros(next_action.size()), noise_std).to(device)
    noise = torch.clamp(noise, -noise_clip, noise_clip)
    next_action += noise

    target_q_value = target_value_net1(next_state, next_action)
    expected_q_value = reward + (1.0 - done) * gamma * target_q_value

    q_value1 = value_net1(state, action)
    value_loss1 = value_criterion(q_value1, expected_q_value.detach())

    value_optimizer1.zero_grad()
    value_loss1.backward()
    value_optimizer1.step()

    if step % policy_update == 0:
        policy_loss = value_net1(state, policy_net(state))
        policy_loss = -policy_loss.mean()
        policy_optimizer.zero_grad()
        policy_loss.backward()
        policy_optimizer.step()


for step in range(4):
    td3_update(step, 8)
