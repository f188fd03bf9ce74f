# source: https://github.com/pytorch/pytorch/issues/12871
# expect: clean
import torch
from torch.autograd import Variable
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x):
        y = torch.sum(x, dim=1)
        y = torch.sum(y, dim=1, keepdim=True)
        print(y)
        y = F.sigmoid(y)
        return y


model = Model()

x = Variable(torch.zeros(3, 5, 10), requires_grad=True)
print(x)

y = model(x)

print(y.shape)
print(y)
y.backward(torch.ones_like(y))

print(x.grad.shape)
print(x.grad)
