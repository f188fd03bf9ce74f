"""The GAN-Geometry#4 fix: reduce to a scalar before autograd.grad."""
import torch

z = torch.randn(5, 3, requires_grad=True)
activations = torch.tanh(z).sum(dim=1)
grads = torch.autograd.grad(activations.mean(), z)
