# source: https://github.com/ccarliu/m3ae/issues/15
# expect: This view was created inside a custom Function
# buggy-line: 34
# mechanism: index assignment into the output of a custom autograd.Function that returns its input as-is (a view autograd cannot rebase)
import torch
import torch.nn as nn


class GradScale(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, scale):
        ctx.scale = scale
        return x

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * ctx.scale, None


class Unet(nn.Module):
    def __init__(self, modalities=2, patch=4):
        super().__init__()
        self.patch = patch
        self.stem = nn.Conv3d(1, 4, 3, padding=1)
        self.limage = nn.Parameter(torch.zeros(1, 4, 8, 8, 8))
        self.head = nn.Conv3d(4, 2, 1)

    def forward(self, x, location):
        x = GradScale.apply(self.stem(x), 0.5)
        for l in range(x.shape[0]):
            mask = (torch.rand(1, 1, self.patch, self.patch, self.patch) > 0.5).float()
            s0, s1, s2 = location[0][l], location[1][l], location[2][l]
            region = (slice(None), slice(s0, s0 + self.patch), slice(s1, s1 + self.patch), slice(s2, s2 + self.patch))
            x[l][region] = x[l][region] * mask[0] + self.limage[0][region] * (1 - mask[0])
        return self.head(x), mask.mean()


model_1 = Unet()
optimizer = torch.optim.Adam(model_1.parameters(), lr=1e-4)
inputs_S1 = torch.randn(2, 1, 8, 8, 8)
patch_locations = [[0, 4], [2, 0], [4, 2]]
segs_S1, mask_ratio = model_1(inputs_S1, patch_locations)
loss = segs_S1.pow(2).mean()
loss.backward()
optimizer.step()
