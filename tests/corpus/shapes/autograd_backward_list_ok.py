"""0-dim gradients for 0-dim losses (or none at all)."""
import torch
import torch.nn.functional as F

head = torch.nn.Linear(5, 3)
x, y = torch.randn(4, 5), torch.randint(0, 3, (4,))
main_loss = F.cross_entropy(head(x), y)
extra = [head(x).pow(2).mean() for _ in range(2)]
torch.autograd.backward([main_loss] + extra, [torch.ones(())] * 3)
