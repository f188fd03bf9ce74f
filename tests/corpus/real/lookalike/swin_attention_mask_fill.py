# source: https://github.com/microsoft/Swin-Transformer/blob/main/models/swin_transformer.py
# expect: clean
# note: slice assignment and masked_fill into a freshly built mask tensor that needs no grad
import torch
import torch.nn as nn


def window_partition(x, window_size):
    B, H, W, C = x.shape
    x = x.view(B, H // window_size, window_size, W // window_size, window_size, C)
    return x.permute(0, 1, 3, 2, 4, 5).contiguous().view(-1, window_size, window_size, C)


class SwinTransformerBlock(nn.Module):
    def __init__(self, dim, input_resolution, window_size=2, shift_size=1):
        super().__init__()
        self.input_resolution = input_resolution
        self.window_size = window_size
        self.shift_size = shift_size
        self.qkv = nn.Linear(dim, dim * 3)
        self.proj = nn.Linear(dim, dim)
        if self.shift_size > 0:
            H, W = self.input_resolution
            img_mask = torch.zeros((1, H, W, 1))
            h_slices = (slice(0, -self.window_size), slice(-self.window_size, -self.shift_size), slice(-self.shift_size, None))
            w_slices = (slice(0, -self.window_size), slice(-self.window_size, -self.shift_size), slice(-self.shift_size, None))
            cnt = 0
            for h in h_slices:
                for w in w_slices:
                    img_mask[:, h, w, :] = cnt
                    cnt += 1
            mask_windows = window_partition(img_mask, self.window_size).view(-1, self.window_size * self.window_size)
            attn_mask = mask_windows.unsqueeze(1) - mask_windows.unsqueeze(2)
            attn_mask = attn_mask.masked_fill(attn_mask != 0, float(-100.0)).masked_fill(attn_mask == 0, float(0.0))
        else:
            attn_mask = None
        self.register_buffer("attn_mask", attn_mask)

    def forward(self, x):
        H, W = self.input_resolution
        B, L, C = x.shape
        shifted = torch.roll(x.view(B, H, W, C), shifts=(-self.shift_size, -self.shift_size), dims=(1, 2))
        windows = window_partition(shifted, self.window_size).view(-1, self.window_size**2, C)
        q, k, v = self.qkv(windows).chunk(3, dim=-1)
        attn = (q @ k.transpose(-2, -1)) * C**-0.5
        nW = self.attn_mask.shape[0]
        attn = attn.view(B, nW, self.window_size**2, self.window_size**2) + self.attn_mask.unsqueeze(0)
        attn = attn.view(-1, self.window_size**2, self.window_size**2)
        return self.proj(attn.softmax(dim=-1) @ v)


block = SwinTransformerBlock(dim=4, input_resolution=(4, 4))
out = block(torch.randn(2, 16, 4))
out.sum().backward()
