# source: https://github.com/lucidrains/flamingo-pytorch/issues/10
# expect: clean
import torch
from torch import nn, einsum
import torch.nn.functional as F


def exists(val):
    return val is not None


# stand-ins for einops.rearrange / einops_exts.rearrange_many / repeat (not installed here)
def split_heads(t, h):
    b, n, hd = t.shape
    return t.view(b, n, h, hd // h).permute(0, 2, 1, 3)


def merge_heads(t):
    b, h, n, d = t.shape
    return t.permute(0, 2, 1, 3).reshape(b, n, h * d)


def FeedForward(dim, mult = 4):
    inner_dim = int(dim * mult)
    return nn.Sequential(
        nn.LayerNorm(dim),
        nn.Linear(dim, inner_dim, bias = False),
        nn.GELU(),
        nn.Linear(inner_dim, dim, bias = False)
    )

# gated cross attention

class MaskedCrossAttention(nn.Module):
    def __init__(
        self,
        *,
        dim,
        dim_head = 64,
        heads = 8,
        only_attend_immediate_media = True
    ):
        super().__init__()
        self.scale = dim_head ** -0.5
        self.heads = heads
        inner_dim = dim_head * heads

        self.norm = nn.LayerNorm(dim)

        self.to_q = nn.Linear(dim, inner_dim, bias = False)
        self.to_kv = nn.Linear(dim, inner_dim * 2, bias = False)
        self.to_out = nn.Linear(inner_dim, dim, bias = False)

        # whether for text to only attend to immediate preceding image, or all images

        self.only_attend_immediate_media = only_attend_immediate_media

    def forward(
        self,
        x,
        media,
        media_locations = None
    ):
        b, t, m = media.shape[:3]
        h = self.heads

        x = self.norm(x)

        q = self.to_q(x)
        media = media.reshape(b, t * m, media.shape[-1])

        k, v = self.to_kv(media).chunk(2, dim = -1)
        q, k, v = (split_heads(q, h), split_heads(k, h), split_heads(v, h))

        q = q * self.scale

        sim = einsum('... i d, ... j d -> ... i j', q, k)

        if exists(media_locations):
            text_time = media_locations.cumsum(dim = -1) # at each boolean of True, increment the time counter (relative to media time)
            media_time = torch.arange(t, device = x.device) + 1

            # text time must equal media time if only attending to most immediate image
            # otherwise, as long as text time is greater than media time (if attending to all previous images / media)
            mask_op = torch.eq if self.only_attend_immediate_media else torch.ge

            text_to_media_mask = mask_op(text_time[:, None, :, None], media_time.repeat_interleave(m)[None, None, None, :])
            sim = sim.masked_fill(~text_to_media_mask, -torch.finfo(sim.dtype).max)

        sim = sim - sim.amax(dim = -1, keepdim = True).detach()
        attn = sim.softmax(dim = -1)

        out = einsum('... i j, ... j d -> ... i d', attn, v)
        out = merge_heads(out)
        return self.to_out(out)

class GatedCrossAttentionBlock(nn.Module):
    def __init__(
        self,
        *,
        dim,
        dim_head = 64,
        heads = 8,
        ff_mult = 4,
        only_attend_immediate_media = True
    ):
        super().__init__()
        self.attn = MaskedCrossAttention(dim = dim, dim_head = dim_head, heads = heads, only_attend_immediate_media = only_attend_immediate_media)
        self.attn_gate = nn.Parameter(torch.tensor([0.]))

        self.ff = FeedForward(dim, mult = ff_mult)
        self.ff_gate = nn.Parameter(torch.tensor([0.]))

    def forward(
        self,
        x,
        media,                  # media tensor, encoded by perceiver resample - (batch, time, latents, dim)
        media_locations = None  # boolean tensor indicating positions of media - (batch, sequence)
    ):
        x = self.attn(x, media, media_locations = media_locations) * self.attn_gate.tanh() + x
        x = self.ff(x) * self.ff_gate.tanh()  + x
        return x


if __name__ == '__main__':
    attn = MaskedCrossAttention(dim = 32, dim_head = 8, heads = 2)
    text = torch.randn(1, 6, 32)
    media = torch.randn(1, 2, 3, 32)                 # two images of three latents each
    media_locations = torch.tensor([[True, False, False, True, False, False]])
    out = attn(text, media, media_locations = media_locations)
    changed = media.clone()
    changed[:, 1] += 1.0                             # only the second image changes
    out_changed = attn(text, changed, media_locations = media_locations)
    # text tokens 0-2 follow the first image only: the second one must not reach them
    assert torch.allclose(out[:, :3], out_changed[:, :3])
