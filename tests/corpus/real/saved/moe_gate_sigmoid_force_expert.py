# source: https://github.com/pytorch/pytorch/issues/9391
# expect: one of the variables needed for gradient computation has been modified by an inplace operation
# buggy-line: 18
# mechanism: index assignment into the output of `sigmoid` (sigmoid saves its result) to force one gate open; the same code with 1/(1+exp(-x)) runs
import torch
import torch.nn as nn


class GatedExperts(nn.Module):
    def __init__(self, dim=6, n_experts=3, always_on=0):
        super().__init__()
        self.gate = nn.Linear(dim, n_experts)
        self.experts = nn.ModuleList([nn.Linear(dim, dim) for _ in range(n_experts)])
        self.always_on = always_on

    def forward(self, x):
        gates = self.gate(x).sigmoid()
        gates[:, self.always_on] = 1.0
        outs = torch.stack([expert(x) for expert in self.experts], dim=1)
        return (gates.unsqueeze(-1) * outs).sum(1)


model = GatedExperts()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
x, y = torch.randn(4, 6), torch.randn(4, 6)
optimizer.zero_grad()
loss = nn.functional.mse_loss(model(x), y)
loss.backward()
optimizer.step()
