# torch: ok
# Guidance that optimises a fresh copy of the latent at every denoising step: the
# optimizer is built in the loop over a new leaf, whose gradient starts empty.
import torch
import torch.nn as nn

denoiser = nn.Linear(4, 4)
for p in denoiser.parameters():
    p.requires_grad_(False)
latents = torch.randn(2, 4)
for t in range(3):
    x_in = latents.detach().clone()
    x_in.requires_grad = True
    opt = torch.optim.SGD([x_in], lr=0.1)
    denoiser(x_in).pow(2).mean().backward()
    expected = x_in.grad.clone()
    opt.step()
    latents = x_in.detach()
assert torch.equal(x_in.grad, expected)
