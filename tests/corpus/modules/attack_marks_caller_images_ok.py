# torch: ok
# The same attacks where the helper makes its own leaf (`x.detach().requires_grad_()`),
# and a saliency helper that marks the tensor it is given, each call getting a fresh one.
import torch
import torch.nn as nn
import torch.nn.functional as F


def fgsm(model, x, y, eps):
    x = x.detach().requires_grad_(True)
    loss = F.cross_entropy(model(x), y)
    model.zero_grad()
    loss.backward()
    return (x + eps * x.grad.sign()).detach()


def saliency(model, x, y):
    x.requires_grad_()
    model(x).gather(1, y[:, None]).sum().backward()
    return x.grad.abs()


model = nn.Sequential(nn.Flatten(), nn.Linear(12, 3))
images, labels = torch.rand(4, 3, 2, 2), torch.tensor([0, 1, 2, 0])
adv = fgsm(model, images, labels, 0.03)
start = images + 0.01 * torch.randn_like(images)
adv_random_start = fgsm(model, start, labels, 0.03)
maps = [saliency(model, images.clone(), labels) for _ in range(2)]
