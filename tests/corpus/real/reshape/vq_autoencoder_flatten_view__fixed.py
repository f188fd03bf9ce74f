# source: https://github.com/lucidrains/vector-quantize-pytorch/issues/70
# expect: clean
import torch
import torch.nn as nn
import torch.nn.functional as F

device = "cpu"


class VectorQuantize(nn.Module):
    """A small stand-in for vector_quantize_pytorch.VectorQuantize: nearest codebook entry,
    straight-through gradient, commitment loss."""

    def __init__(self, dim, codebook_size):
        super().__init__()
        self.codebook = nn.Parameter(torch.randn(codebook_size, dim))

    def forward(self, x):
        distances = torch.cdist(x, self.codebook.expand(x.shape[0], -1, -1))
        indices = distances.argmin(dim=-1)
        quantized = self.codebook[indices]
        commit_loss = F.mse_loss(quantized.detach(), x)
        return x + (quantized - x).detach(), indices, commit_loss


class SimpleVQAutoEncoder(nn.Module):
    def __init__(self, **vq_kwargs):
        super().__init__()
        self.layers = nn.ModuleList(
            [
                nn.Conv2d(1, 16, kernel_size=3, stride=1, padding=1),
                nn.MaxPool2d(kernel_size=2, stride=2),
                nn.GELU(),
                nn.Conv2d(16, 32, kernel_size=3, stride=1, padding=1),
                nn.MaxPool2d(kernel_size=2, stride=2),
                VectorQuantize(dim=32, **vq_kwargs),
                nn.Upsample(scale_factor=2, mode="nearest"),
                nn.Conv2d(32, 16, kernel_size=3, stride=1, padding=1),
                nn.GELU(),
                nn.Upsample(scale_factor=2, mode="nearest"),
                nn.Conv2d(16, 1, kernel_size=3, stride=1, padding=1),
            ]
        )

    def forward(self, x):
        for layer in self.layers:
            if isinstance(layer, VectorQuantize):
                b, c, h, w = x.shape
                x_flat = x.permute(0, 2, 3, 1).reshape(b, h * w, c)
                self.quantizer_input = (x, x_flat)
                x_flat, indices, commit_loss = layer(x_flat)
                x = x_flat.reshape(b, h, w, c).permute(0, 3, 1, 2)
            else:
                x = layer(x)

        return x.clamp(-1, 1), indices, commit_loss


torch.manual_seed(1234)
model = SimpleVQAutoEncoder(codebook_size=256).to(device)
opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
x = torch.rand(4, 1, 28, 28)
opt.zero_grad()
out, indices, cmt_loss = model(x)
rec_loss = (out - x).abs().mean()
(rec_loss + 10 * cmt_loss).backward()
opt.step()
fmap, flat = model.quantizer_input
assert torch.equal(flat[:, 0], fmap[:, :, 0, 0])
