# source: https://github.com/pytorch/pytorch/issues/36470
# expect: one of the variables needed for gradient computation has been modified by an inplace operation
# buggy-line: 13
# also-line: 14
# mechanism: a recurrence f(n) = sigmoid(f(n-1) * x) written into one preallocated buffer: each step's multiply saved a view of the buffer that the next index assignment overwrites
import torch


def unroll(x, a=1.0, steps=10):
    f = torch.zeros(steps)
    f[0] = a
    for i in range(1, steps):
        f[i] = f[i - 1] * x
        f[i] = 1 / (1.0 + torch.exp(-f[i]))
    return f


x = torch.ones(1)
x.requires_grad_()
f = unroll(x)
loss = torch.sum(f)
grad = torch.autograd.grad(loss, [x])[0]
print(grad)
