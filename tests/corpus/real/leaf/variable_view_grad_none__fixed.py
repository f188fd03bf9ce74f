# source: https://github.com/pytorch/pytorch/issues/1479
# expect: clean
import torch
from torch.autograd import Variable

a = Variable(torch.Tensor([1, 2, 3])).view(1, 3)
b = Variable(torch.Tensor([4, 5, 6]).view(3, 1), requires_grad=True)  # view applied to tensor works
c = a.mm(b).sum()
c.backward()
print(a.requires_grad)
print(b.requires_grad)
print(b.grad)
assert b.grad is not None
