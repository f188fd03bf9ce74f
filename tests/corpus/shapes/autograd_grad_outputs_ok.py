"""torch.autograd.grad with grad_outputs like the output."""
import torch

x = torch.randn(6, 4, requires_grad=True)
y = x.sum(dim=0)
(g,) = torch.autograd.grad(y, x, grad_outputs=torch.ones_like(y))
