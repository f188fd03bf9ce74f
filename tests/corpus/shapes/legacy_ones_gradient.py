"""Legacy `loss.backward(torch.ones(1))` on a 0-dim loss (old tutorials)."""
# torch: Mismatch in shape
import torch
import torch.nn.functional as F

prediction = torch.randn(4, 3, requires_grad=True)
loss = F.mse_loss(prediction, torch.randn(4, 3))
loss.backward(torch.ones(1))  # expect: GL301
