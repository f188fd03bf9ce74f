# torch: ok
# A tagger's argmax feeds a scorer through a helper: the scorer trains, but the argmax
# cuts the graph, so the tagger's parameters never get a gradient.
import torch
import torch.nn as nn


def score_tags(tagger, scorer, x):
    tags = tagger(x).argmax(dim=-1)  # expect: GL203
    return scorer(tags).squeeze(-1)


tagger = nn.Linear(6, 4)
scorer = nn.Sequential(nn.Embedding(4, 3), nn.Linear(3, 1))
opt = torch.optim.SGD([{"params": tagger.parameters()}, {"params": scorer.parameters(), "lr": 0.01}], lr=0.1)
for step in range(2):
    x, target = torch.randn(5, 6), torch.randn(5)
    loss = ((score_tags(tagger, scorer, x) - target) ** 2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
assert tagger.weight.grad is None
