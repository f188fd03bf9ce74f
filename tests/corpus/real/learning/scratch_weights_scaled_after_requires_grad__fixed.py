# source: https://github.com/pytorch/tutorials/issues/3716
# expect: clean
import math

import torch
import torch.nn.functional as F

x_train = torch.randn(16, 784)
y_train = torch.randint(0, 10, (16,))

weights = torch.randn(784, 10) / math.sqrt(784)
weights.requires_grad_()
bias = torch.zeros(10, requires_grad=True)


def model(xb):
    return F.log_softmax(xb @ weights + bias, dim=-1)


lr = 0.5
bs = 8
for i in range(2):
    xb, yb = x_train[i * bs : (i + 1) * bs], y_train[i * bs : (i + 1) * bs]
    loss = F.nll_loss(model(xb), yb)
    loss.backward()
    with torch.no_grad():
        weights -= weights.grad * lr
        bias -= bias.grad * lr
        weights.grad.zero_()
        bias.grad.zero_()
