# source: https://github.com/lzx1413/PytorchSSD/issues/72
# expect: clean
# mechanism: L2Norm divides its input in place (x /= norm); the input is the vgg ReLU output, which ReLU saved and the norm's pow read
import torch
import torch.nn as nn
import torch.nn.init as init


class L2Norm(nn.Module):
    def __init__(self, n_channels, scale):
        super(L2Norm, self).__init__()
        self.n_channels = n_channels
        self.gamma = scale or None
        self.eps = 1e-10
        self.weight = nn.Parameter(torch.Tensor(self.n_channels))
        self.reset_parameters()

    def reset_parameters(self):
        init.constant_(self.weight, self.gamma)

    def forward(self, x):
        norm = x.pow(2).sum(dim=1, keepdim=True).sqrt() + self.eps
        x = x / norm
        out = self.weight.unsqueeze(0).unsqueeze(2).unsqueeze(3).expand_as(x) * x
        return out


def vgg(cfg, i):
    layers = []
    in_channels = i
    for v in cfg:
        if v == "M":
            layers += [nn.MaxPool2d(kernel_size=2, stride=2)]
        else:
            layers += [nn.Conv2d(in_channels, v, kernel_size=3, padding=1), nn.ReLU(inplace=True)]
            in_channels = v
    return layers


class SSD(nn.Module):
    def __init__(self, num_classes):
        super(SSD, self).__init__()
        self.base = nn.ModuleList(vgg([8, "M", 16], 3))
        self.L2Norm = L2Norm(16, 20)
        self.loc = nn.Conv2d(16, 4, kernel_size=3, padding=1)
        self.conf = nn.Conv2d(16, num_classes, kernel_size=3, padding=1)

    def forward(self, x):
        for k in range(len(self.base)):
            x = self.base[k](x)
        s = self.L2Norm(x)
        return self.loc(s), self.conf(s)


net = SSD(num_classes=3)
optimizer = torch.optim.SGD(net.parameters(), lr=1e-3, momentum=0.9)
images = torch.randn(2, 3, 8, 8)
loc, conf = net(images)
optimizer.zero_grad()
loss = loc.abs().mean() + conf.pow(2).mean()
loss.backward()
optimizer.step()
