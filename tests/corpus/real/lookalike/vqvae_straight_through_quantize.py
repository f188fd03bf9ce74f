# source: https://github.com/rosinality/vq-vae-2-pytorch/blob/master/vqvae.py
# expect: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


class Quantize(nn.Module):
    def __init__(self, dim=4, n_embed=8):
        super().__init__()
        self.register_buffer("embed", torch.randn(dim, n_embed))

    def forward(self, input):
        flatten = input.reshape(-1, input.size(-1))
        dist = flatten.pow(2).sum(1, keepdim=True) - 2 * flatten @ self.embed + self.embed.pow(2).sum(0, keepdim=True)
        _, embed_ind = (-dist).max(1)
        quantize = F.embedding(embed_ind.view(*input.shape[:-1]), self.embed.transpose(0, 1))
        diff = (quantize.detach() - input).pow(2).mean()
        quantize = input + (quantize - input).detach()
        return quantize, diff


enc = nn.Linear(6, 4)
dec = nn.Linear(4, 6)
x = torch.randn(3, 5, 6)
q, diff = Quantize()(enc(x))
loss = F.mse_loss(dec(q), x) + 0.25 * diff
loss.backward()
assert enc.weight.grad is not None
