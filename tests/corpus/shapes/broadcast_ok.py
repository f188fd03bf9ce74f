"""Broadcasting a (5,) bias and a (8, 1) scale over (8, 5) logits."""
import torch

logits = torch.randn(8, 5)
scores = logits + torch.randn(5)
scaled = logits * torch.randn(8, 1)
