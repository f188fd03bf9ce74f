# A reset helper takes the recurrent states as *states and zeroes each in place; the
# initial states are leaves created with requires_grad=True.
import torch
import torch.nn as nn


def reset(*states):
    for s in states:
        s.zero_()  # expect: GL101


cell = nn.LSTMCell(3, 5)
h0 = torch.randn(2, 5, requires_grad=True)
c0 = torch.randn(2, 5, requires_grad=True)
for episode in range(2):
    reset(h0, c0)
    h, c = cell(torch.randn(2, 3), (h0, c0))
    h.sum().backward()
