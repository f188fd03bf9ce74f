# The same helpers used correctly: the reset runs under no_grad, the max-norm constraint
# after backward() and the optimizer step.
import torch
import torch.nn as nn


def reset(*states):
    with torch.no_grad():
        for s in states:
            s.zero_()


def max_norm_(param, max_norm=1.0):
    norm = param.data.norm()
    if norm > max_norm:
        param.data *= max_norm / norm


cell = nn.LSTMCell(3, 5)
h0 = torch.randn(2, 5, requires_grad=True)
c0 = torch.randn(2, 5, requires_grad=True)
opt = torch.optim.SGD(cell.parameters(), lr=0.1)
for episode in range(2):
    reset(h0, c0)
    h, c = cell(torch.randn(2, 3), (h0, c0))
    loss = h.sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
    max_norm_(cell.weight_ih)
