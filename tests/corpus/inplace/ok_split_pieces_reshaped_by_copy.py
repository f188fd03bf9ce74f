# Pieces of chunk / split edited in place only after a reshape that must copy (merging
# dims across the cut), a clone, or contiguous() of a strided piece: new tensors.
import torch

x = torch.randn(2, 6, 4)
w = torch.randn(4, 4, requires_grad=True)
h = x @ w
a, b = h.chunk(2, dim=-1)
a = a.reshape(-1)
a += 1
c, d = torch.split(h, [3, 3], dim=1)
c = c.clone().reshape(2, 3, 2, 2)
c *= 2
d = d.transpose(1, 2).contiguous()
d -= 1
(a.sum() + b.sum() + c.sum() + d.sum()).backward()
