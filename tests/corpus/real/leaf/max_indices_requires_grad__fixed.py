# source: https://github.com/pytorch/pytorch/issues/95110
# expect: clean
import torch
import torch.nn as nn


class HardSelector(nn.Module):
    def __init__(self, n_in=6, n_choices=4):
        super().__init__()
        self.scorer = nn.Linear(n_in, n_choices)
        self.values = nn.Parameter(torch.randn(n_choices))

    def forward(self, x):
        scores = self.scorer(x)
        best, choice = torch.max(scores, dim=1)
        return self.values[choice] * best


model = HardSelector()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
out = model(torch.randn(5, 6))
loss = out.pow(2).mean()
loss.backward()
optimizer.step()
