# source: https://github.com/lyongo/NWPU-MOC/issues/4
# expect: one of the variables needed for gradient computation has been modified by an inplace operation
# buggy-line: 36
# mechanism: `+=` on a list element that holds a ReLU output (ReLU saves its result), top-down FPN loop
import torch
import torch.nn as nn
import torch.nn.functional as F


class ConvModule(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, padding=0):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size, padding=padding)
        self.bn = nn.BatchNorm2d(out_channels)
        self.activate = nn.ReLU()

    def forward(self, x):
        return self.activate(self.bn(self.conv(x)))


class FPN_Head(nn.Module):
    def __init__(self, in_channels=(8, 16, 32), channels=8, num_classes=3):
        super().__init__()
        self.lateral_convs = nn.ModuleList()
        self.fpn_convs = nn.ModuleList()
        for in_ch in in_channels:
            self.lateral_convs.append(ConvModule(in_ch, channels, 1))
            self.fpn_convs.append(ConvModule(channels, channels, 3, padding=1))
        self.cls_seg = nn.Conv2d(channels, num_classes, 1)

    def forward(self, inputs):
        laterals = [lateral_conv(inputs[i]) for i, lateral_conv in enumerate(self.lateral_convs)]
        used_backbone_levels = len(laterals)
        for i in range(used_backbone_levels - 1, 0, -1):
            prev_shape = laterals[i - 1].shape[2:]
            laterals[i - 1] += F.interpolate(laterals[i], size=prev_shape, mode="nearest")
        outs = [self.fpn_convs[i](laterals[i]) for i in range(used_backbone_levels)]
        for i in range(used_backbone_levels - 1, 0, -1):
            outs[i] = F.interpolate(outs[i], size=outs[0].shape[2:], mode="bilinear", align_corners=False)
        return self.cls_seg(sum(outs))


head = FPN_Head()
optimizer = torch.optim.SGD(head.parameters(), lr=0.01)
feats = [torch.randn(2, 8, 16, 16), torch.randn(2, 16, 8, 8), torch.randn(2, 32, 4, 4)]
target = torch.randn(2, 3, 16, 16)

optimizer.zero_grad()
loss = F.mse_loss(head(feats), target)
loss.backward()
optimizer.step()
