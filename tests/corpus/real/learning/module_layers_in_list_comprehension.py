# source: https://github.com/pytorch/pytorch/issues/59925
# expect: silent: self.layers is a plain list: net.parameters() is empty of its Linear layers, the optimizer never updates them
# buggy-line: 10
import torch


class Net(torch.nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.layers = [torch.nn.Linear(4, 4) for i in range(2)]

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


net = Net()
print(list(net.parameters()))  # prints an empty list
assert list(net.parameters()) == []
