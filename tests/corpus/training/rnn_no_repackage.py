# torch: raises Trying to backward through the graph a second time
# Truncated BPTT without detaching the hidden state between batches: the second batch's
# backward reaches into the first batch's freed graph.
import torch
import torch.nn as nn


class CharRNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.GRU(3, 5, batch_first=True)
        self.out = nn.Linear(5, 3)

    def forward(self, x, h):
        y, h = self.rnn(x, h)
        return self.out(y), h


model = CharRNN()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
hidden = torch.zeros(1, 2, 5)
for step in range(3):
    x, y = torch.randn(2, 4, 3), torch.randn(2, 4, 3)
    optimizer.zero_grad()
    out, hidden = model(x, hidden)
    loss = nn.functional.mse_loss(out, y)
    loss.backward()  # expect: GL305
    optimizer.step()
