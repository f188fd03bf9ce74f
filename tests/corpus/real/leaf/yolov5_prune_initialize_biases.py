# source: https://github.com/xhwNobody/yolov5_prune_sfp/issues/17
# expect: a view of a leaf Variable that requires grad is being used in an in-place operation
# buggy-line: 33
# also-line: 34
# mechanism: `+=` on slices of `mi.bias.view(na, -1)` (a view of a Parameter) in `_initialize_biases`, called from `__init__` outside no_grad
import math

import torch
import torch.nn as nn


class Detect(nn.Module):
    def __init__(self, nc=80, ch=(8, 16), na=3):
        super().__init__()
        self.nc = nc
        self.no = nc + 5
        self.na = na
        self.stride = torch.tensor([8.0, 16.0])
        self.m = nn.ModuleList(nn.Conv2d(x, self.no * self.na, 1) for x in ch)


class Model(nn.Module):
    def __init__(self, nc=80):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(3, 8, 3, 2, 1), nn.SiLU())
        self.head_self = Detect(nc=nc)
        self._initialize_biases()

    def _initialize_biases(self, cf=None):
        m = self.head_self
        for mi, s in zip(m.m, m.stride):
            b = mi.bias.view(m.na, -1)
            b[:, 4] += math.log(8 / (640 / s) ** 2)
            b[:, 5:] += math.log(0.6 / (m.nc - 0.99)) if cf is None else torch.log(cf / cf.sum())
            mi.bias = torch.nn.Parameter(b.view(-1), requires_grad=True)


model_src = Model(nc=4)
model_dst = Model(nc=4)
model_dst.load_state_dict(model_src.state_dict())
