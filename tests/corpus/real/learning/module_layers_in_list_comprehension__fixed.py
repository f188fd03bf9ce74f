# source: https://github.com/pytorch/pytorch/issues/59925
# expect: clean
import torch


class Net(torch.nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.layers = torch.nn.ModuleList([torch.nn.Linear(4, 4) for i in range(2)])

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


net = Net()
assert len(list(net.parameters())) == 4
