# A perturbation helper adds noise in place to every tensor passed after the scale; the
# tensors are learnable leaves made with requires_grad=True.
import torch


def perturb(scale, *leaves):
    for leaf in leaves:
        leaf.add_(scale * torch.randn_like(leaf))  # expect: GL101


w = torch.randn(3, 3, requires_grad=True)
b = torch.zeros(3, requires_grad=True)
opt = torch.optim.SGD([w, b], lr=0.1)
for step in range(2):
    perturb(0.01, w, b)
    loss = (torch.randn(4, 3) @ w + b).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
