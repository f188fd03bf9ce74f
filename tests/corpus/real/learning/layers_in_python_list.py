# source: https://github.com/pytorch/pytorch/issues/666
# expect: silent: the layers kept in a plain list are not parameters of the net: the optimizer never updates them
# buggy-line: 12
import torch
import torch.nn as nn


class net(nn.Module):
    def __init__(self, num_layers):
        super(net, self).__init__()
        self.layer = nn.Linear(1, 1)
        self.list_of_layers = [nn.Linear(1, 1) for i in range(num_layers)]

    def forward(self, x):
        for l in self.list_of_layers:
            x = torch.tanh(l(x))
        return self.layer(x)


n = net(4)
before = n.list_of_layers[0].weight.detach().clone()
opt = torch.optim.SGD(n.parameters(), lr=0.5)
for _ in range(3):
    x = torch.randn(8, 1)
    loss = ((n(x) - 2 * x) ** 2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
assert len(list(n.parameters())) == 2
assert torch.equal(n.list_of_layers[0].weight, before)
