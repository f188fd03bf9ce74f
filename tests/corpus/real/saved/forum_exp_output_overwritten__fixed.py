# source: https://discuss.pytorch.org/t/when-inplace-operation-are-allowed-and-when-not/169583/3
# expect: clean
import torch
import torch.nn as nn


def energy_scores(logits, cap_index=None, cap_value=10.0):
    scores = logits.exp()
    if cap_index is not None:
        scores = scores.clone()
        scores[:, cap_index] = cap_value
    return scores / scores.sum(dim=1, keepdim=True)


model = nn.Linear(6, 3)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(4, 6)
y = torch.tensor([0, 1, 2, 1])
for step in range(2):
    optimizer.zero_grad()
    probs = energy_scores(model(x), cap_index=2)
    loss = nn.functional.nll_loss(probs.log(), y)
    loss.backward()
    optimizer.step()
