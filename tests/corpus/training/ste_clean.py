# torch: ok
# Straight-through estimators, argmax used to index, an EMA copy updated under no_grad,
# and a forward returning hard predictions next to its logits.
import copy

import torch
import torch.nn as nn


class Quantizer(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 4)

    def forward(self, x):
        z = self.proj(x)
        hard = torch.round(z)
        return z + (hard - z).detach()


class Gumbel(nn.Module):
    def __init__(self):
        super().__init__()
        self.logits = nn.Linear(4, 3)

    def forward(self, x):
        scores = self.logits(x)
        index = scores.argmax(dim=-1)
        picked = scores.gather(-1, index.unsqueeze(-1))
        return picked.squeeze(-1)


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)

    def forward(self, x):
        logits = self.fc(x)
        return logits, logits.argmax(-1)


model = nn.Sequential(Quantizer(), nn.Linear(4, 4))
ema = copy.deepcopy(model)
optimizer = torch.optim.SGD([*model.parameters()], lr=0.1)
gumbel = Gumbel()
for _ in range(2):
    optimizer.zero_grad()
    loss = model(torch.randn(2, 4)).pow(2).mean() + gumbel(torch.randn(2, 4)).sum()
    loss.backward()
    optimizer.step()
    with torch.no_grad():
        for ema_p, p in zip(ema.parameters(), model.parameters()):
            ema_p.mul_(0.9).add_(p, alpha=0.1)
assert gumbel.logits.weight.grad is not None
logits, labels = Classifier()(torch.randn(2, 4))
