# source: https://github.com/ShusenTang/Dive-into-DL-PyTorch/issues/12
# expect: clean
import torch


def show_grad(expr):
    x = torch.ones(1, requires_grad=True)
    y = expr(x)
    y.backward()
    x.data *= 100
    return x, x.grad


x, grad = show_grad(lambda x: 2 * x * x)
print(x, grad)
assert torch.equal(grad, torch.tensor([4.0]))
