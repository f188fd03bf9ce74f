# source: https://github.com/HansBambel/multidim_conv/issues/2
# expect: clean
import torch
import torch.nn as nn


class AugmentedConv(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size=3, dk=8, dv=4, Nh=2):
        super().__init__()
        self.dk, self.dv, self.Nh = dk, dv, Nh
        self.conv_out = nn.Conv2d(in_channels, out_channels - dv, kernel_size, padding=kernel_size // 2)
        self.qkv_conv = nn.Conv2d(in_channels, 2 * dk + dv, kernel_size=1)
        self.attn_out = nn.Conv2d(dv, dv, kernel_size=1)

    def split_heads_2d(self, x, Nh):
        batch, channels, height, width = x.size()
        return torch.reshape(x, (batch, Nh, channels // Nh, height, width))

    def compute_flat_qkv(self, x, dk, dv, Nh):
        qkv = self.qkv_conv(x)
        N, _, H, W = qkv.size()
        q, k, v = torch.split(qkv, [dk, dk, dv], dim=1)
        q = self.split_heads_2d(q, Nh)
        k = self.split_heads_2d(k, Nh)
        v = self.split_heads_2d(v, Nh)
        dkh = dk // Nh
        q_new = q * dkh**-0.5
        flat_q = torch.reshape(q_new, (N, Nh, dk // Nh, H * W))
        flat_k = torch.reshape(k, (N, Nh, dk // Nh, H * W))
        flat_v = torch.reshape(v, (N, Nh, dv // Nh, H * W))
        return flat_q, flat_k, flat_v, q_new, k, v

    def forward(self, x):
        conv_out = self.conv_out(x)
        batch, _, height, width = conv_out.size()
        flat_q, flat_k, flat_v, q, k, v = self.compute_flat_qkv(x, self.dk, self.dv, self.Nh)
        logits = torch.matmul(flat_q.transpose(2, 3), flat_k)
        weights = torch.softmax(logits, dim=-1)
        attn_out = torch.matmul(weights, flat_v.transpose(2, 3))
        attn_out = torch.reshape(attn_out.permute(0, 1, 3, 2), (batch, self.Nh, self.dv // self.Nh, height, width))
        attn_out = self.attn_out(attn_out.reshape(batch, self.dv, height, width))
        return torch.cat((conv_out, attn_out), dim=1)


model = nn.Sequential(AugmentedConv(3, 8), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, 1))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
x, y = torch.randn(2, 3, 4, 4), torch.randn(2, 1)
optimizer.zero_grad()
loss = nn.functional.mse_loss(model(x), y)
loss.backward()
optimizer.step()
