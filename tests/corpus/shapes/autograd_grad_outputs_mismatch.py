"""torch.autograd.grad with grad_outputs of the input's shape instead of the output's."""
# torch: Mismatch in shape
import torch

x = torch.randn(6, 4, requires_grad=True)
y = x.sum(dim=0)
(g,) = torch.autograd.grad(y, x, grad_outputs=torch.ones(6, 4))  # expect: GL301
