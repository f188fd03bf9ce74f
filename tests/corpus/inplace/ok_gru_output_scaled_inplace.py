# nn.GRU (unlike nn.LSTM) does not save its output for backward: scaling it in place is
# legal.
import torch
import torch.nn as nn

gru = nn.GRU(4, 8, batch_first=True)
classifier = nn.Linear(8, 2)
tokens = torch.randn(3, 5, 4)
output, h_n = gru(tokens)
output[:, -1] *= 0.5
classifier(output[:, -1]).sum().backward()
