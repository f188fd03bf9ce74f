# source: https://github.com/ShusenTang/Dive-into-DL-PyTorch/issues/12
# expect: silent: `x.data *= 100` after `y = 2 * x * x` was built changes the saved value behind autograd's back, so x.grad is 202 instead of 4
# buggy-line: 11
# mechanism: a write through `.data` of a leaf after the graph that uses it was built and before backward (no version-counter check)
import torch


def show_grad(expr):
    x = torch.ones(1, requires_grad=True)
    y = expr(x)
    x.data *= 100
    y.backward()
    return x, x.grad


x, grad = show_grad(lambda x: 2 * x * x)
print(x, grad)
assert torch.equal(grad, torch.tensor([202.0]))
assert not torch.equal(grad, torch.tensor([4.0]))
