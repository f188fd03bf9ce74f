# source: https://github.com/xieenze/Trans2Seg/issues/4
# expect: silent: each class embedding is built from other classes' head outputs: the query of class 1 changes the output of class 0
# buggy-line: 33
# mechanism: (attn @ v) is (B, heads, nclass, C // heads); reshape(B, nclass, C) merges heads with the class axis instead of moving heads next to the head dim
import torch
import torch.nn as nn


class Attention(nn.Module):
    def __init__(self, dim, num_heads=8, qkv_bias=False, qk_scale=None, attn_drop=0., proj_drop=0.):
        super().__init__()
        self.num_heads = num_heads
        head_dim = dim // num_heads
        self.scale = qk_scale or head_dim ** -0.5
        self.q = nn.Linear(dim, dim, bias=qkv_bias)
        self.kv = nn.Linear(dim, dim * 2, bias=qkv_bias)
        self.attn_drop = nn.Dropout(attn_drop)
        self.proj = nn.Linear(dim, dim)
        self.proj_drop = nn.Dropout(proj_drop)

    def forward(self, x, query):
        B, N, C = x.shape
        nclass = query.shape[1]
        q = self.q(query).reshape(B, nclass, self.num_heads, C // self.num_heads).permute(0, 2, 1, 3)
        kv = self.kv(x).reshape(B, N, 2, self.num_heads, C // self.num_heads).permute(2, 0, 3, 1, 4)
        k, v = kv[0], kv[1]

        attn = (q @ k.transpose(-2, -1)) * self.scale
        attn = attn.softmax(dim=-1)
        attn_save = attn.clone()
        attn = self.attn_drop(attn)

        x = (attn @ v).reshape(B, nclass, C)
        x = self.proj(x)
        x = self.proj_drop(x)
        return x, attn_save


layer = Attention(64, num_heads=8).eval()
feats = torch.randn(2, 16, 64)
cls_query = torch.randn(2, 5, 64)
out, _ = layer(feats, cls_query)
moved = cls_query.clone()
moved[:, 1] += 1.0  # only class 1's query changes
out2, _ = layer(feats, moved)
assert not torch.allclose(out[:, 0], out2[:, 0])  # class 0 is mixed with class 1
