# torch: ok
# Edits under no_grad that no live graph needs: the critic is clipped after the step,
# the first layer (whose weight nothing saved: its input needs no grad) is renormalised
# between forward and backward, and so is an embedding table (its backward reads only
# the indices).
import torch
import torch.nn as nn


class Critic(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(10, 8)
        self.body = nn.Linear(4, 8)
        self.head = nn.Linear(8, 1)

    def forward(self, ids, x):
        return self.head(torch.relu(self.body(x) + self.embed(ids)))


critic = Critic()
optimizer = torch.optim.RMSprop(critic.parameters(), lr=5e-5)
for step in range(2):
    ids, x = torch.randint(0, 10, (8,)), torch.randn(8, 4)
    loss = critic(ids, x).mean()
    with torch.no_grad():
        critic.body.weight.div_(critic.body.weight.norm().clamp(min=1.0))
        critic.embed.weight.renorm_(2, 0, 1.0)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    with torch.no_grad():
        critic.head.weight.clamp_(-0.01, 0.01)
