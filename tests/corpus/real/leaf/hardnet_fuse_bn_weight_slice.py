# source: https://github.com/PingoLH/FCHarDNet/issues/61
# expect: a leaf Variable that requires grad is being used in an in-place operation
# buggy-line: 35
# also-line: 36
# mechanism: slice assignment into a conv weight reached through a module's children, outside no_grad
import torch
import torch.nn as nn


class ConvLayer(nn.Sequential):
    def __init__(self, in_channels, out_channels, kernel=3):
        super().__init__()
        self.add_module("conv", nn.Conv2d(in_channels, out_channels, kernel, padding=kernel // 2, bias=False))
        self.add_module("norm", nn.BatchNorm2d(out_channels))
        self.add_module("relu", nn.ReLU(inplace=True))


class HarDNetTiny(nn.Module):
    def __init__(self):
        super().__init__()
        self.base = nn.ModuleList([ConvLayer(3, 8), ConvLayer(8, 8)])
        self.head = nn.Conv2d(8, 4, 1)

    def forward(self, x):
        for layer in self.base:
            x = layer(x)
        return self.head(x)


def fuse_bn(conv, bn):
    std = (bn.running_var + bn.eps).sqrt()
    W = conv.weight * (bn.weight / std).reshape(-1, 1, 1, 1)
    b = bn.bias - bn.weight * bn.running_mean / std
    cconv = nn.Conv2d(conv.in_channels, conv.out_channels, conv.kernel_size, padding=conv.padding, bias=True)
    cconv.weight[:, :, :, :] = W[:, :, :, :]
    cconv.bias[:] = b[:]
    return cconv


def fuse_bn_recursively(model):
    for layer in model.base:
        layer.conv = fuse_bn(layer.conv, layer.norm)
        layer.norm = nn.Identity()
    return model


model = HarDNetTiny().eval()
model = fuse_bn_recursively(model)
images = torch.randn(1, 3, 16, 16)
with torch.no_grad():
    outputs = model(images)
print(outputs.shape)
