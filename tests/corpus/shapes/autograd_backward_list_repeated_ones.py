"""One `torch.ones(1)` per loss, listed with `[g] * n`: each mean loss is 0-dim."""
# torch: Mismatch in shape
import torch
import torch.nn.functional as F

head = torch.nn.Linear(5, 3)
x, y = torch.randn(4, 5), torch.randint(0, 3, (4,))
main_loss = F.cross_entropy(head(x), y)
extra = [head(x).pow(2).mean() for _ in range(2)]
torch.autograd.backward([main_loss] + extra, [torch.ones(1)] * 3)  # expect: GL301
