# Random start of an adversarial perturbation created with requires_grad=True.
import torch

x = torch.rand(4, 3)
eps = 0.03
delta = torch.zeros_like(x, requires_grad=True)
delta.uniform_(-eps, eps)  # expect: GL101
