# source: https://github.com/pytorch/pytorch/issues/61410
# expect: silent: torch.Tensor([p, ...]) copies the parameters' values into a new tensor that requires no grad: the loss built on it never reaches them
# buggy-line: 12
import torch

t = torch.FloatTensor([1.0])
p = torch.nn.Parameter(t)
q = torch.nn.Parameter(torch.FloatTensor([2.0]))
p.requires_grad = True

optimizer = torch.optim.SGD([p, q], lr=0.1)
weights = torch.Tensor([p, q])
print(weights.requires_grad)
loss = (weights * torch.tensor([3.0, 4.0])).sum()
if loss.requires_grad:
    loss.backward()
optimizer.step()
assert p.grad is None and p.item() == 1.0
