# source: https://github.com/pytorch/pytorch/issues/8017
# expect: silent: the convs built in a loop are kept in a plain list, so Module.to() does not move them and model.parameters() is empty
# buggy-line: 12
# also-line: 14
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, layer_size):
        super(Model, self).__init__()
        self.conv = []
        for idx in range(layer_size):
            self.conv.append(nn.Conv2d(in_channels=in_channels, out_channels=out_channels,kernel_size=(3,3)))
            in_channels = out_channels
            out_channels *= 2

    def forward(self, x):
        for conv in self.conv:
            x = conv(x)
        return x


# stands for .to(torch.device("cuda")): a dtype move takes the same path as a device move
model = Model(in_channels=1, out_channels=16, layer_size=3).to(torch.float64)
assert model.conv[0].weight.dtype == torch.float32
assert list(model.parameters()) == []
