# source: https://github.com/pytorch/pytorch/issues/36470
# expect: clean
import torch


def unroll(x, a=1.0, steps=10):
    values = [torch.full((1,), a)]
    for _ in range(1, steps):
        values.append(1 / (1.0 + torch.exp(-(values[-1] * x))))
    return torch.cat(values)


x = torch.ones(1)
x.requires_grad_()
f = unroll(x)
loss = torch.sum(f)
grad = torch.autograd.grad(loss, [x])[0]
print(grad)
