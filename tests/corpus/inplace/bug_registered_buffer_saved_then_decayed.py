# A recurrent memory module scales its projection by a registered buffer, then decays the
# buffer in place in the same forward: the multiplication saved the buffer for backward.
import torch
import torch.nn as nn


class DecayingMemory(nn.Module):
    def __init__(self, dim=4, decay=0.9):
        super().__init__()
        self.decay = decay
        self.proj = nn.Linear(dim, dim)
        self.register_buffer("memory", torch.ones(2, dim))

    def forward(self, x):
        out = self.proj(x) * self.memory
        self.memory.mul_(self.decay)  # expect: GL103
        return out


model = DecayingMemory()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for step in range(2):
    loss = model(torch.randn(2, 4)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
