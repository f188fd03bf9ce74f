# source: https://github.com/ClownW/Reinforcement-learning-with-PyTorch/issues/3
# expect: clean
import numpy as np
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self, n_feature, n_hidden, n_output):
        super(Net, self).__init__()
        self.el = nn.Linear(n_feature, n_hidden)
        self.q = nn.Linear(n_hidden, n_output)

    def forward(self, x):
        x = self.el(x)
        x = torch.relu(x)
        return self.q(x)


class DeepQNetwork:
    def __init__(self, n_actions, n_features, learning_rate=0.01, reward_decay=0.9, batch_size=4):
        self.n_actions = n_actions
        self.n_features = n_features
        self.lr = learning_rate
        self.gamma = reward_decay
        self.batch_size = batch_size
        self.memory = np.random.rand(8, n_features * 2 + 2)
        self.loss_func = nn.MSELoss()
        self.cost_his = []
        self._build_net()

    def _build_net(self):
        self.q_eval = Net(self.n_features, 10, self.n_actions)
        self.q_target = Net(self.n_features, 10, self.n_actions)
        self.optimizer = torch.optim.RMSprop(self.q_eval.parameters(), lr=self.lr)

    def learn(self):
        batch_memory = self.memory[np.random.choice(8, size=self.batch_size)]
        q_next = self.q_target(torch.Tensor(batch_memory[:, -self.n_features :]))
        q_eval = self.q_eval(torch.Tensor(batch_memory[:, : self.n_features]))
        q_target = torch.Tensor(q_eval.data.numpy().copy())
        batch_index = np.arange(self.batch_size, dtype=np.int32)
        eval_act_index = batch_memory[:, self.n_features].astype(int) % self.n_actions
        reward = torch.Tensor(batch_memory[:, self.n_features + 1])
        q_target[batch_index, eval_act_index] = reward + self.gamma * torch.max(q_next, 1)[0]
        loss = self.loss_func(q_eval, q_target)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        self.cost_his.append(loss.item())

    def plot_cost(self):
        costs = np.array(self.cost_his)
        return np.arange(len(costs)), costs


RL = DeepQNetwork(n_actions=2, n_features=3)
for step in range(3):
    RL.learn()
RL.plot_cost()
