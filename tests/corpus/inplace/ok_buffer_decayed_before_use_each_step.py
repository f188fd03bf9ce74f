# A memory buffer decayed in place at the top of forward, before this step uses it: the
# previous step's backward() already freed the graph that saved it.
import torch
import torch.nn as nn

class Memory(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 4)
        self.register_buffer("state", torch.zeros(2, 4))

    def forward(self, x):
        self.state.mul_(0.9)
        self.state.add_(x.detach())
        return self.proj(x) * self.state

m = Memory()
opt = torch.optim.SGD(m.parameters(), lr=0.1)
for i in range(3):
    loss = m(torch.randn(2, 4)).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
