# source: https://github.com/danieltan07/learning-to-reweight-examples/issues/6
# expect: clean
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.autograd import Variable


def to_var(x, requires_grad=True):
    if torch.cuda.is_available():
        x = x.cuda()
    return Variable(x, requires_grad=requires_grad)


class MetaModule(nn.Module):
    # adopted from: Adrien Ecoffet https://github.com/AdrienLE
    def params(self):
        for name, param in self.named_params(self):
            yield param

    def named_leaves(self):
        return []

    def named_params(self, curr_module=None, memo=None, prefix=""):
        if memo is None:
            memo = set()
        if hasattr(curr_module, "named_leaves"):
            for name, p in curr_module.named_leaves():
                if p is not None and p not in memo:
                    memo.add(p)
                    yield prefix + ("." if prefix else "") + name, p
        for mname, module in curr_module.named_children():
            submodule_prefix = prefix + ("." if prefix else "") + mname
            for name, p in self.named_params(module, memo, submodule_prefix):
                yield name, p


class MetaLinear(MetaModule):
    def __init__(self, *args, **kwargs):
        super().__init__()
        ignore = nn.Linear(*args, **kwargs)
        self.register_buffer("weight", to_var(ignore.weight.data, requires_grad=True))
        self.register_buffer("bias", to_var(ignore.bias.data, requires_grad=True))

    def forward(self, x):
        return F.linear(x, self.weight, self.bias)

    def named_leaves(self):
        return [("weight", self.weight), ("bias", self.bias)]


class MetaConv2d(MetaModule):
    def __init__(self, *args, **kwargs):
        super().__init__()
        ignore = nn.Conv2d(*args, **kwargs)
        self.stride = ignore.stride
        self.padding = ignore.padding
        self.register_buffer("weight", to_var(ignore.weight.data, requires_grad=True))
        self.register_buffer("bias", to_var(ignore.bias.data, requires_grad=True))

    def forward(self, x):
        return F.conv2d(x, self.weight, self.bias, self.stride, self.padding)

    def named_leaves(self):
        return [("weight", self.weight), ("bias", self.bias)]


class LeNet(MetaModule):
    def __init__(self, n_out):
        super(LeNet, self).__init__()
        layers = []
        layers.append(MetaConv2d(1, 6, kernel_size=5))
        layers.append(nn.ReLU(inplace=True))
        layers.append(nn.MaxPool2d(kernel_size=2, stride=2))
        self.main = nn.Sequential(*layers)
        layers = []
        layers.append(MetaLinear(6 * 4 * 4, 10))
        layers.append(nn.ReLU(inplace=True))
        layers.append(MetaLinear(10, n_out))
        self.fc_layers = nn.Sequential(*layers)

    def forward(self, x):
        x = self.main(x)
        x = x.view(-1, 6 * 4 * 4)
        return self.fc_layers(x).squeeze()


args = argparse.Namespace(lr=1e-3, momentum=0.9)
model = LeNet(n_out=1)
optimizer = optim.SGD(model.params(), lr=args.lr, momentum=args.momentum)
