# torch: raises one of the variables needed for gradient computation has been modified by an inplace operation
# Online learning on a stream: the GRU cell's hidden state is carried across steps with
# retain_graph=True, so each backward reaches the previous step's graph, whose saved
# weights the optimizer has updated since.
import torch
import torch.nn as nn


class Tracker(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Linear(3, 4)
        self.cell = nn.GRUCell(4, 5)
        self.out = nn.Linear(5, 1)

    def forward(self, x, h):
        h = self.cell(torch.relu(self.embed(x)), h)
        return self.out(h), h


model = Tracker()
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
h = torch.zeros(1, 5)
for t in range(3):
    x, y = torch.randn(1, 3), torch.randn(1, 1)
    pred, h = model(x, h)
    loss = (pred - y).pow(2).mean()
    optimizer.zero_grad()
    loss.backward(retain_graph=True)
    optimizer.step()  # expect: GL103, GL504
