"""A gradient penalty seeding autograd.grad with ones shaped like the input, not the output."""
# torch: Mismatch in shape
import torch
import torch.nn as nn

critic = nn.Sequential(nn.Flatten(), nn.Linear(12, 1))


def penalty(real):
    real = real.requires_grad_(True)
    scores = critic(real)
    (grads,) = torch.autograd.grad(
        scores,
        real,
        grad_outputs=torch.ones_like(real),  # expect: GL301
        create_graph=True,
    )
    return grads.pow(2).mean()


penalty(torch.randn(4, 3, 4))
