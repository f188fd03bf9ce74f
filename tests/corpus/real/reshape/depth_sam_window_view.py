# source: https://github.com/ashutosh1807/PixelFormer/issues/18
# expect: shape '[2, 4, 4, 8]' is invalid for input of size 144
# buggy-line: 22
# also-line: 19
import torch
import torch.nn as nn
import torch.nn.functional as F


class SAMBlock(nn.Module):
    def __init__(self, dim=8, window_size=4):
        super().__init__()
        self.window_size = window_size
        self.v = nn.Linear(dim, dim)

    def forward(self, x, e, Wh, Ww):
        B, L, C = x.shape
        # feature maps are padded to a multiple of the window size
        H = Wh + (-Wh) % self.window_size
        W = Ww + (-Ww) % self.window_size
        v = self.v(e)
        v = v.view(B, H, W, C)
        return (x.view(B, Wh, Ww, C) + F.adaptive_avg_pool2d(v.permute(0, 3, 1, 2), (Wh, Ww)).permute(0, 2, 3, 1)).flatten(1, 2)


block = SAMBlock()
Wh = Ww = 3
q = torch.randn(2, Wh * Ww, 8)
e = torch.randn(2, Wh * Ww, 8)  # the encoder feature is not padded: 3 * 3 tokens
out = block(q, e, Wh, Ww)
out.sum().backward()
