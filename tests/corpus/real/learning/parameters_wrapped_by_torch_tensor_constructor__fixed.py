# source: https://github.com/pytorch/pytorch/issues/61410
# expect: clean
import torch

t = torch.FloatTensor([1.0])
p = torch.nn.Parameter(t)
q = torch.nn.Parameter(torch.FloatTensor([2.0]))
p.requires_grad = True

optimizer = torch.optim.SGD([p, q], lr=0.1)
weights = torch.cat([p, q])
print(weights.requires_grad)
loss = (weights * torch.tensor([3.0, 4.0])).sum()
if loss.requires_grad:
    loss.backward()
optimizer.step()
assert p.grad is not None and p.item() != 1.0
