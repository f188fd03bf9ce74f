"""autograd.grad of a vector output without grad_outputs (GAN-Geometry#4)."""
# torch: grad can be implicitly created only for scalar outputs
import torch

z = torch.randn(5, 3, requires_grad=True)
activations = torch.tanh(z).sum(dim=1)
grads = torch.autograd.grad(activations, z)  # expect: GL302
