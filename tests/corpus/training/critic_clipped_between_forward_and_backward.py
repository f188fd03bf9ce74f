# torch: raises one of the variables needed for gradient computation has been modified by an inplace operation
# A WGAN-style critic whose weight clipping was moved between the forward pass and the
# backward: the clip runs under no_grad, but the output layer saved its weight for the
# input's gradient and the in-place clamp still moves that weight's version counter.
import torch
import torch.nn as nn


class Critic(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(4, 8)
        self.head = nn.Linear(8, 1)

    def clip_(self, limit):
        with torch.no_grad():
            self.head.weight.clamp_(-limit, limit)  # expect: GL103

    def forward(self, x):
        return self.head(torch.relu(self.body(x)))


critic = Critic()
optimizer = torch.optim.RMSprop(critic.parameters(), lr=5e-5)
for step in range(2):
    real, fake = torch.randn(8, 4), torch.randn(8, 4)
    loss = critic(fake).mean() - critic(real).mean()
    critic.clip_(0.01)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
