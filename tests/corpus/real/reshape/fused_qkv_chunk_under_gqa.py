# source: https://github.com/wanshuiyin/ARIS-in-AI-Offer/pull/45
# expect: shape '[2, 7, 4, 16]' is invalid for input of size 602
# buggy-line: 23
# also-line: 22
import torch
import torch.nn as nn
import torch.nn.functional as F


class GQASelfAttention(nn.Module):
    def __init__(self, d_model=64, n_heads=4, n_kv_groups=2):
        super().__init__()
        self.n_heads = n_heads
        self.n_kv = n_kv_groups
        self.d_k = d_model // n_heads
        # fused projection: D for the queries, G * d_k for the keys and for the values
        self.qkv = nn.Linear(d_model, d_model + 2 * n_kv_groups * self.d_k)
        self.out = nn.Linear(d_model, d_model)

    def forward(self, x):
        B, T, D = x.shape
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        q = q.view(B, T, self.n_heads, self.d_k).transpose(1, 2)
        k = k.view(B, T, self.n_kv, self.d_k).transpose(1, 2).repeat_interleave(self.n_heads // self.n_kv, 1)
        v = v.view(B, T, self.n_kv, self.d_k).transpose(1, 2).repeat_interleave(self.n_heads // self.n_kv, 1)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.out(y.transpose(1, 2).reshape(B, T, D))


attn = GQASelfAttention()
y = attn(torch.randn(2, 7, 64))
y.pow(2).mean().backward()
