# source: https://github.com/leaderj1001/Attention-Augmented-Conv2d/issues/21
# expect: silent: the attention map of a constant image is not constant: pixels get values of other channels
# buggy-line: 25
# mechanism: attn_out is (batch, Nh, H * W, dvh); reshape to (batch, Nh, dvh, H, W) splits the pixel axis as if it were the channel axis
import torch
import torch.nn as nn
import torch.nn.functional as F


class AugmentedConv(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, dk, dv, Nh):
        super(AugmentedConv, self).__init__()
        self.dk, self.dv, self.Nh = dk, dv, Nh
        self.conv_out = nn.Conv2d(in_channels, out_channels - self.dv, kernel_size, padding=kernel_size // 2)
        self.qkv_conv = nn.Conv2d(in_channels, 2 * self.dk + self.dv, kernel_size=1)
        self.attn_out = nn.Conv2d(self.dv, self.dv, kernel_size=1)

    def forward(self, x):
        batch, _, height, width = x.size()
        conv_out = self.conv_out(x)
        flat_q, flat_k, flat_v, q, k, v = self.compute_flat_qkv(x, self.dk, self.dv, self.Nh)
        logits = torch.matmul(flat_q.transpose(2, 3), flat_k)
        weights = F.softmax(logits, dim=-1)
        attn_out = torch.matmul(weights, flat_v.transpose(2, 3))
        attn_out = torch.reshape(attn_out, (batch, self.Nh, self.dv // self.Nh, height, width))
        attn_out = self.combine_heads_2d(attn_out)
        attn_out = self.attn_out(attn_out)
        return torch.cat((conv_out, attn_out), dim=1)

    def compute_flat_qkv(self, x, dk, dv, Nh):
        qkv = self.qkv_conv(x)
        N, _, H, W = qkv.size()
        q, k, v = torch.split(qkv, [dk, dk, dv], dim=1)
        q = self.split_heads_2d(q, Nh)
        k = self.split_heads_2d(k, Nh)
        v = self.split_heads_2d(v, Nh)
        dkh = dk // Nh
        q = q * dkh ** -0.5
        flat_q = torch.reshape(q, (N, Nh, dk // Nh, H * W))
        flat_k = torch.reshape(k, (N, Nh, dk // Nh, H * W))
        flat_v = torch.reshape(v, (N, Nh, dv // Nh, H * W))
        return flat_q, flat_k, flat_v, q, k, v

    def split_heads_2d(self, x, Nh):
        batch, channels, height, width = x.size()
        return torch.reshape(x, (batch, Nh, channels // Nh, height, width))

    def combine_heads_2d(self, x):
        batch, Nh, dv, H, W = x.size()
        return torch.reshape(x, (batch, Nh * dv, H, W))


conv = AugmentedConv(in_channels=3, out_channels=20, kernel_size=3, dk=40, dv=4, Nh=2)
flat_image = torch.ones(1, 3, 6, 6) * torch.tensor([0.3, -1.0, 2.0]).view(1, 3, 1, 1)
attn_channels = conv(flat_image)[:, -4:]
# every pixel attends to identical values, so each attention channel should be flat
assert not torch.allclose(attn_channels.std(dim=(2, 3)), torch.zeros(1, 4), atol=1e-5)
