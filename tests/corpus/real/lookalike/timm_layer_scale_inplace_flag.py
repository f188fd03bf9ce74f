# source: https://github.com/huggingface/pytorch-image-models/blob/main/timm/layers/layer_scale.py
# expect: clean
# note: `x.mul_(gamma) if self.inplace else x * gamma`, with the opt-in `inplace` flag left at its default False
import torch
import torch.nn as nn


class LayerScale(nn.Module):
    def __init__(self, dim: int, init_values: float = 1e-5, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace
        self.gamma = nn.Parameter(init_values * torch.ones(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x.mul_(self.gamma) if self.inplace else x * self.gamma


class Block(nn.Module):
    def __init__(self, dim=8, init_values=1e-5):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attn = nn.MultiheadAttention(dim, 2, batch_first=True)
        self.ls1 = LayerScale(dim, init_values=init_values)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 2 * dim), nn.GELU(), nn.Linear(2 * dim, dim))
        self.ls2 = LayerScale(dim, init_values=init_values)

    def forward(self, x):
        h = self.norm1(x)
        x = x + self.ls1(self.attn(h, h, h, need_weights=False)[0])
        x = x + self.ls2(self.mlp(self.norm2(x)))
        return x


blocks = nn.Sequential(Block(), Block())
optimizer = torch.optim.AdamW(blocks.parameters(), lr=1e-3)
out = blocks(torch.randn(2, 5, 8))
out.mean().backward()
optimizer.step()
