# source: https://github.com/pytorch/tutorials/blob/main/beginner_source/blitz/autograd_tutorial.py
# expect: clean
import torch

a = torch.tensor([2.0, 3.0], requires_grad=True)
b = torch.tensor([6.0, 4.0], requires_grad=True)
Q = 3 * a**3 - b**2
external_grad = torch.tensor([1.0, 1.0])
Q.backward(gradient=external_grad)
assert torch.equal(9 * a**2, a.grad)
assert torch.equal(-2 * b, b.grad)

out = torch.nn.Linear(3, 4)(torch.randn(2, 3))
out.backward(torch.ones_like(out))
