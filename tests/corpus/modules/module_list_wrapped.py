# torch: ok
# The fixed forms of the two reports above: lists wrapped or unpacked into containers.
import torch.nn as nn


class Net(nn.Module):
    def __init__(self, num_layers, width):
        super().__init__()
        layers = [nn.Linear(width, width) for _ in range(num_layers)]
        self.body = nn.Sequential(*layers)
        self.layers = layers  # the same modules, already registered through self.body
        heads = []
        for _ in range(num_layers):
            heads.append(nn.Linear(width, 1))
        self.heads = nn.ModuleList(heads)
        self.widths = [width] * num_layers
        self.scales = nn.ParameterList([nn.Parameter(nn.init.ones_(nn.Linear(1, 1).weight))])

    def forward(self, x):
        x = self.body(x)
        return [head(x) for head in self.heads]


net = Net(3, 4)
assert len(list(net.parameters())) == 3 * 2 + 3 * 2 + 1
