# torch: RuntimeError: you can only change requires_grad flags of leaf variables
# An FGSM helper switches requires_grad on for the batch it is given: the caller's own
# `images` tensor. The random-start attack that follows builds `images + noise`, a
# non-leaf now, and hands it to the same helper.
import torch
import torch.nn as nn
import torch.nn.functional as F


def fgsm(model, x, y, eps):
    x.requires_grad = True  # expect: GL204
    loss = F.cross_entropy(model(x), y)
    model.zero_grad()
    loss.backward()
    return (x + eps * x.grad.sign()).detach()


model = nn.Sequential(nn.Flatten(), nn.Linear(12, 3))
images, labels = torch.rand(4, 3, 2, 2), torch.tensor([0, 1, 2, 0])
adv = fgsm(model, images, labels, 0.03)
start = images + 0.01 * torch.randn_like(images)
adv_random_start = fgsm(model, start, labels, 0.03)
