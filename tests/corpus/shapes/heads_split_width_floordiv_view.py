"""A head split written with a floor division of a width the code never fixes: the
`view` after `transpose(1, 2)` merges the heads with the per-head width, which the
earlier reshape proved to multiply back to C."""
# torch: view size is not compatible with input tensor's size and stride
import torch
import torch.nn as nn

HEADS = 3


class HeadMixer(nn.Module):
    def __init__(self):
        super().__init__()
        self.heads = HEADS
        self.gate = nn.Parameter(torch.ones(HEADS, 1, 1))

    def forward(self, x):
        B, N, C = x.shape
        y = x.reshape(B, N, self.heads, C // self.heads).transpose(1, 2).contiguous()
        y = y * self.gate  # heads-major in memory now
        return y.transpose(1, 2).view(B, N, C)  # expect: GL401


mixer = HeadMixer()
mixer(torch.randn(2, 5, 12)).sum().backward()
