# source: https://github.com/isayev/ReLeaSE/issues/39
# expect: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


class StackAugmentedRNN(nn.Module):
    def __init__(self, n_chars=6, hidden=8):
        super().__init__()
        self.encoder = nn.Embedding(n_chars, hidden)
        self.rnn = nn.GRUCell(hidden, hidden)
        self.decoder = nn.Linear(hidden, n_chars)

    def forward(self, inp, h):
        h = self.rnn(self.encoder(inp), h)
        return self.decoder(h), h


class Reinforcement:
    def __init__(self, generator, get_reward, gamma=0.97):
        self.generator = generator
        self.get_reward = get_reward
        self.gamma = gamma
        self.optimizer = torch.optim.Adam(generator.parameters(), lr=1e-3)

    def policy_gradient(self, n_steps=4):
        rl_loss = 0
        h = torch.zeros(1, 8)
        inp = torch.tensor([0])
        trajectory = []
        for _ in range(n_steps):
            output, h = self.generator(inp, h)
            log_probs = F.log_softmax(output, dim=1)
            top_i = torch.multinomial(log_probs.exp(), 1).item()
            trajectory.append((log_probs, top_i))
            inp = torch.tensor([top_i])
        reward = self.get_reward([t for _, t in trajectory])
        discounted_reward = reward
        for log_probs, top_i in trajectory:
            rl_loss = rl_loss - (log_probs[0, top_i] * discounted_reward)
            discounted_reward = discounted_reward * self.gamma
        self.optimizer.zero_grad()
        rl_loss.backward()
        self.optimizer.step()
        return rl_loss.item()


generator = StackAugmentedRNN()
RL = Reinforcement(generator, lambda smiles: float(len(set(smiles))))
RL.policy_gradient()
assert generator.decoder.weight.grad is not None
