# source: https://github.com/d2l-ai/d2l-en/pull/2600
# expect: clean
import torch
from torch import nn
from torch.nn import functional as F


class MyLinear(nn.Module):
    def __init__(self, in_units, units):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(in_units, units))
        self.bias = nn.Parameter(torch.randn(units))

    def forward(self, X):
        linear = torch.matmul(X, self.weight) + self.bias
        return F.relu(linear)


net = nn.Sequential(MyLinear(64, 8), nn.Linear(8, 1))
trainer = torch.optim.SGD(net.parameters(), lr=0.03)
X, y = torch.rand(2, 64), torch.rand(2, 1)
loss = F.mse_loss(net(X), y)
trainer.zero_grad()
loss.backward()
trainer.step()
assert net[0].weight.grad is not None
