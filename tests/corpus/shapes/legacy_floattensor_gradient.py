"""`backward(torch.FloatTensor([1.0]))` on a mean loss."""
# torch: Mismatch in shape
import torch

w = torch.randn(3, requires_grad=True)
loss = (w * 2).mean()
loss.backward(torch.FloatTensor([1.0]))  # expect: GL301
