# torch: AssertionError: layers kept in a python list are missing from parameters()
# Modelled on pytorch/pytorch#666: layers built in a list comprehension never register.
import torch.nn as nn


class Net(nn.Module):
    def __init__(self, num_layers):
        super().__init__()
        self.layer = nn.Linear(1, 1)
        self.list_of_layers = [nn.Linear(1, 1) for i in range(num_layers)]  # expect: GL502

    def forward(self, x):
        x = self.layer(x)
        for layer in self.list_of_layers:
            x = layer(x)
        return x


net = Net(4)
if len(list(net.parameters())) == 2:
    raise AssertionError("layers kept in a python list are missing from parameters()")
