"""backward() straight on an mm output (MaskPoint#7 style)."""
# torch: grad can be implicitly created only for scalar outputs
import torch

x = torch.randn(4, 3, requires_grad=True)
w = torch.randn(3, 2, requires_grad=True)
out = torch.mm(x, w)
out.backward()  # expect: GL302
