# source: https://github.com/DataXujing/YOLO-v5/issues/23
# expect: clean
import math
from copy import deepcopy

import torch
import torch.nn as nn


def make_divisible(x, divisor):
    # Returns x evenly divisible by divisor
    return math.ceil(x / divisor) * divisor


class Conv(nn.Module):
    # Standard convolution
    def __init__(self, c1, c2, k=1, s=1):  # ch_in, ch_out, kernel, stride
        super(Conv, self).__init__()
        self.conv = nn.Conv2d(c1, c2, k, s, k // 2, bias=False)
        self.bn = nn.BatchNorm2d(c2)
        self.act = nn.LeakyReLU(0.1, inplace=True)

    def forward(self, x):
        return self.act(self.bn(self.conv(x)))


class Detect(nn.Module):
    def __init__(self, nc=80, anchors=(), ch=()):  # detection layer
        super(Detect, self).__init__()
        self.stride = None  # strides computed during build
        self.nc = nc  # number of classes
        self.no = nc + 5  # number of outputs per anchor
        self.nl = len(anchors)  # number of detection layers
        self.na = len(anchors[0]) // 2  # number of anchors
        self.grid = [torch.zeros(1)] * self.nl  # init grid
        a = torch.tensor(anchors).float().view(self.nl, -1, 2)
        self.register_buffer('anchors', a)  # shape(nl,na,2)
        self.register_buffer('anchor_grid', a.clone().view(self.nl, 1, -1, 1, 1, 2))  # shape(nl,1,na,1,1,2)
        self.m = nn.ModuleList(nn.Conv2d(x, self.no * self.na, 1) for x in ch)  # output conv
        self.export = False  # onnx export

    def forward(self, x):
        x = x.copy()  # for profiling
        for i in range(self.nl):
            x[i] = self.m[i](x[i])  # conv
            bs, _, ny, nx = x[i].shape  # x(bs,255,20,20) to x(bs,3,20,20,85)
            x[i] = x[i].view(bs, self.na, self.no, ny, nx).permute(0, 1, 3, 4, 2).contiguous()
        return x


class Model(nn.Module):
    def __init__(self, cfg, ch=3, nc=None):  # model, input channels, number of classes
        super(Model, self).__init__()
        self.yaml = deepcopy(cfg)  # stands for the parsed yolov5s.yaml

        # Define model
        if nc and nc != self.yaml['nc']:
            print('Overriding %s nc=%g with nc=%g' % ('cfg', self.yaml['nc'], nc))
            self.yaml['nc'] = nc  # override yaml value
        w = self.yaml['width_multiple']
        c1, c2 = make_divisible(16 * w, 8), make_divisible(32 * w, 8)
        self.backbone = nn.ModuleList([Conv(ch, c1, 3, 2), Conv(c1, c2, 3, 2)])
        self.detect = Detect(self.yaml['nc'], self.yaml['anchors'], (c1, c2))

        # Build strides, anchors
        m = self.detect  # Detect()
        if isinstance(m, Detect):
            s = 64  # 2x min stride
            m.stride = torch.tensor([s / x.shape[-2] for x in self.forward(torch.zeros(1, ch, s, s))])  # forward
            m.anchors /= m.stride.view(-1, 1, 1)
            self.stride = m.stride
            self._initialize_biases()  # only run once

    def forward(self, x):
        y = []
        for layer in self.backbone:
            x = layer(x)
            y.append(x)
        return self.detect(y)

    def _initialize_biases(self, cf=None):  # initialize biases into Detect(), cf is class frequency
        # cf = torch.bincount(torch.tensor(np.concatenate(dataset.labels, 0)[:, 0]).long(), minlength=nc) + 1.
        m = self.detect  # Detect() module
        for mi, s in zip(m.m, m.stride):  # from
            b = mi.bias.view(m.na, -1)  # conv.bias(255) to (3,85)
            with torch.no_grad():
                b[:, 4] += math.log(8 / (640 / s) ** 2)  # obj (8 objects per 640 image)
                b[:, 5:] += math.log(0.6 / (m.nc - 0.99)) if cf is None else torch.log(cf / cf.sum())  # cls
            mi.bias = torch.nn.Parameter(b.view(-1), requires_grad=True)


if __name__ == '__main__':
    cfg = {'nc': 80, 'depth_multiple': 0.33, 'width_multiple': 0.50,
           'anchors': [[10, 13, 16, 30, 33, 23], [30, 61, 62, 45, 59, 119]]}
    model = Model(cfg)
    model.train()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.937, nesterov=True)
    pred = model(torch.randn(2, 3, 64, 64))
    loss = sum(p[..., 4].sigmoid().mean() for p in pred)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
