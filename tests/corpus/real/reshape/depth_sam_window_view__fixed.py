# source: https://github.com/ashutosh1807/PixelFormer/issues/18
# expect: clean
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
        H = Wh + (-Wh) % self.window_size
        W = Ww + (-Ww) % self.window_size
        v = self.v(e).view(B, Wh, Ww, C)
        # pad the encoder feature to the window grid before using the padded size
        v = F.pad(v, (0, 0, 0, W - Ww, 0, H - Wh))
        return (x.view(B, Wh, Ww, C) + F.adaptive_avg_pool2d(v.permute(0, 3, 1, 2), (Wh, Ww)).permute(0, 2, 3, 1)).flatten(1, 2)


block = SAMBlock()
Wh = Ww = 3
q = torch.randn(2, Wh * Ww, 8)
e = torch.randn(2, Wh * Ww, 8)
out = block(q, e, Wh, Ww)
out.sum().backward()
