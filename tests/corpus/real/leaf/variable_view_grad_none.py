# source: https://github.com/pytorch/pytorch/issues/1479
# expect: silent: .view(3, 1) applied to the Variable that requires grad makes b a non-leaf result of the view, so b.grad stays None after backward (the leaf the gradient goes to is the unnamed Variable before the view)
# buggy-line: 10
# also-line: 15
# mechanism: a non-leaf tensor's .grad read after backward
import torch
from torch.autograd import Variable

a = Variable(torch.Tensor([1, 2, 3])).view(1, 3)
b = Variable(torch.Tensor([4, 5, 6]), requires_grad=True).view(3, 1)  # view applied to variable makes b.grad None
c = a.mm(b).sum()
c.backward()
print(a.requires_grad)
print(b.requires_grad)
print(b.grad)
# the effect: no gradient reaches b
assert b.grad is None
