# source: https://github.com/thuanz123/enhancing-transformers/issues/11
# expect: clean
import numpy as np
from typing import Union, Tuple
from collections import OrderedDict

import torch
import torch.nn as nn
import torch.nn.functional as F


# stands for einops' rearrange / Rearrange, for the patterns this file uses
def rearrange(t, pattern, h=None):
    if pattern == 'b n (h d) -> b h n d':
        b, n, hd = t.shape
        return t.view(b, n, h, hd // h).permute(0, 2, 1, 3)
    if pattern == 'b h n d -> b n (h d)':
        b, h, n, d = t.shape
        return t.permute(0, 2, 1, 3).reshape(b, n, h * d)
    raise NotImplementedError(pattern)


class Rearrange(nn.Module):
    def __init__(self, pattern, h=None):
        super().__init__()
        self.pattern, self.h = pattern, h

    def forward(self, x):
        if self.pattern == 'b c h w -> b (h w) c':
            return x.flatten(2).transpose(1, 2)
        if self.pattern == 'b (h w) c -> b c h w':
            b, hw, c = x.shape
            return x.transpose(1, 2).reshape(b, c, self.h, hw // self.h)
        raise NotImplementedError(self.pattern)


def get_2d_sincos_pos_embed(embed_dim, grid_size):
    grid_size = (grid_size, grid_size) if type(grid_size) != tuple else grid_size
    grid_h = np.arange(grid_size[0], dtype=np.float32)
    grid_w = np.arange(grid_size[1], dtype=np.float32)
    grid = np.meshgrid(grid_w, grid_h)  # here w goes first
    grid = np.stack(grid, axis=0)

    grid = grid.reshape([2, 1, grid_size[0], grid_size[1]])
    pos_embed = get_2d_sincos_pos_embed_from_grid(embed_dim, grid)

    return pos_embed


def get_2d_sincos_pos_embed_from_grid(embed_dim, grid):
    assert embed_dim % 2 == 0

    # use half of dimensions to encode grid_h
    emb_h = get_1d_sincos_pos_embed_from_grid(embed_dim // 2, grid[0])  # (H*W, D/2)
    emb_w = get_1d_sincos_pos_embed_from_grid(embed_dim // 2, grid[1])  # (H*W, D/2)

    emb = np.concatenate([emb_h, emb_w], axis=1)  # (H*W, D)
    return emb


def get_1d_sincos_pos_embed_from_grid(embed_dim, pos):
    assert embed_dim % 2 == 0
    omega = np.arange(embed_dim // 2, dtype=np.float64)
    omega /= embed_dim / 2.
    omega = 1. / 10000**omega  # (D/2,)

    pos = pos.reshape(-1)  # (M,)
    out = np.einsum('m,d->md', pos, omega)  # (M, D/2), outer product

    emb_sin = np.sin(out)  # (M, D/2)
    emb_cos = np.cos(out)  # (M, D/2)

    emb = np.concatenate([emb_sin, emb_cos], axis=1)  # (M, D)
    return emb


class PreNorm(nn.Module):
    def __init__(self, dim: int, fn: nn.Module) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.fn = fn

    def forward(self, x: torch.FloatTensor, **kwargs) -> torch.FloatTensor:
        return self.fn(self.norm(x), **kwargs)


class FeedForward(nn.Module):
    def __init__(self, dim: int, hidden_dim: int) -> None:
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(dim, hidden_dim),
            nn.Tanh(),
            nn.Linear(hidden_dim, dim)
        )

    def forward(self, x: torch.FloatTensor) -> torch.FloatTensor:
        return self.net(x)


class Attention(nn.Module):
    def __init__(self, dim: int, heads: int = 8, dim_head: int = 64) -> None:
        super().__init__()
        inner_dim = dim_head * heads
        project_out = not (heads == 1 and dim_head == dim)

        self.heads = heads
        self.scale = dim_head ** -0.5

        self.attend = nn.Softmax(dim=-1)
        self.to_qkv = nn.Linear(dim, inner_dim * 3, bias=False)

        self.to_out = nn.Linear(inner_dim, dim) if project_out else nn.Identity()

    def forward(self, x: torch.FloatTensor) -> torch.FloatTensor:
        qkv = self.to_qkv(x).chunk(3, dim=-1)
        q, k, v = map(lambda t: rearrange(t, 'b n (h d) -> b h n d', h=self.heads), qkv)

        attn = torch.matmul(q, k.transpose(-1, -2)) * self.scale
        attn = self.attend(attn)

        out = torch.matmul(attn, v)
        out = rearrange(out, 'b h n d -> b n (h d)')

        return self.to_out(out)


class Transformer(nn.Module):
    def __init__(self, dim: int, depth: int, heads: int, dim_head: int, mlp_dim: int) -> None:
        super().__init__()
        self.layers = nn.ModuleList([])
        for idx in range(depth):
            layer = nn.ModuleList([PreNorm(dim, Attention(dim, heads=heads, dim_head=dim_head)),
                                   PreNorm(dim, FeedForward(dim, mlp_dim))])
            self.layers.append(layer)

    def forward(self, x: torch.FloatTensor) -> torch.FloatTensor:
        for attn, ff in self.layers:
            x = attn(x) + x
            x = ff(x) + x

        return x


class ViTEncoder(nn.Module):
    def __init__(self, image_size: Union[Tuple[int, int], int], patch_size: Union[Tuple[int, int], int],
                 dim: int, depth: int, heads: int, mlp_dim: int, channels: int = 3, dim_head: int = 64) -> None:
        super().__init__()
        image_height, image_width = image_size if isinstance(image_size, tuple) \
            else (image_size, image_size)
        patch_height, patch_width = patch_size if isinstance(patch_size, tuple) \
            else (patch_size, patch_size)

        assert image_height % patch_height == 0 and image_width % patch_width == 0, 'Image dimensions must be divisible by the patch size.'
        en_pos_embedding = get_2d_sincos_pos_embed(dim, (image_height // patch_height, image_width // patch_width))

        self.num_patches = (image_height // patch_height) * (image_width // patch_width)
        self.patch_dim = channels * patch_height * patch_width

        self.to_patch_embedding = nn.Sequential(
            nn.Conv2d(channels, dim, kernel_size=patch_size, stride=patch_size),
            Rearrange('b c h w -> b (h w) c'),
        )
        self.en_pos_embedding = nn.Parameter(torch.from_numpy(en_pos_embedding).float().unsqueeze(0), requires_grad=False)
        self.transformer = Transformer(dim, depth, heads, dim_head, mlp_dim)
        self.norm = nn.LayerNorm(dim)

    def forward(self, img: torch.FloatTensor) -> torch.FloatTensor:
        x = self.to_patch_embedding(img)
        x += self.en_pos_embedding
        x = self.transformer(x)

        return self.norm(x)


class ViTDecoder(nn.Module):
    def __init__(self, image_size: Union[Tuple[int, int], int], patch_size: Union[Tuple[int, int], int],
                 dim: int, depth: int, heads: int, mlp_dim: int, channels: int = 3, dim_head: int = 64) -> None:
        super().__init__()
        image_height, image_width = image_size if isinstance(image_size, tuple) \
            else (image_size, image_size)
        patch_height, patch_width = patch_size if isinstance(patch_size, tuple) \
            else (patch_size, patch_size)

        assert image_height % patch_height == 0 and image_width % patch_width == 0, 'Image dimensions must be divisible by the patch size.'
        de_pos_embedding = get_2d_sincos_pos_embed(dim, (image_height // patch_height, image_width // patch_width))

        self.num_patches = (image_height // patch_height) * (image_width // patch_width)
        self.patch_dim = channels * patch_height * patch_width

        self.transformer = Transformer(dim, depth, heads, dim_head, mlp_dim)
        self.de_pos_embedding = nn.Parameter(torch.from_numpy(de_pos_embedding).float().unsqueeze(0), requires_grad=False)
        self.norm = nn.LayerNorm(dim)
        self.to_pixel = nn.Sequential(OrderedDict([
            ('reshape', Rearrange('b (h w) c -> b c h w', h=image_height // patch_height)),
            ('conv_out', nn.ConvTranspose2d(dim, channels, kernel_size=patch_size, stride=patch_size))
        ]))

    def forward(self, token: torch.FloatTensor) -> torch.FloatTensor:
        token = token + self.de_pos_embedding
        x = self.transformer(token)
        x = self.norm(x)

        return self.to_pixel(x)

    def get_last_layer(self) -> nn.Parameter:
        return self.to_pixel.conv_out.weight


encoder_config = dict(image_size=16, patch_size=4, dim=16, depth=1, heads=2, mlp_dim=32, dim_head=8)
decoder_config_a = dict(image_size=16, patch_size=4, dim=16, depth=1, heads=2, mlp_dim=32, dim_head=8)
decoder_config_b = dict(image_size=16, patch_size=4, dim=16, depth=2, heads=2, mlp_dim=32, dim_head=8)

encoder = ViTEncoder(**encoder_config)
decoder_a = ViTDecoder(**decoder_config_a)
decoder_b = ViTDecoder(**decoder_config_b)
params = list(encoder.parameters()) + list(decoder_a.parameters()) + list(decoder_b.parameters())
optimizer = torch.optim.Adam(params, lr=1e-4)

img = torch.randn(2, 3, 16, 16)
quant = encoder(img)
rec_a = decoder_a(quant)
rec_b = decoder_b(quant)
loss = F.mse_loss(rec_a, img) + F.mse_loss(rec_b, img)
optimizer.zero_grad()
loss.backward()
optimizer.step()
