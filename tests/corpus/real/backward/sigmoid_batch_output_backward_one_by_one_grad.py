# source: https://github.com/pytorch/pytorch/issues/12871
# expect: Mismatch in shape
# buggy-line: 32
# mechanism: the model's output for a batch of 3 has shape (3, 1); y.backward is given a (1, 1) gradient
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
y.backward(torch.FloatTensor([[1]]))

print(x.grad.shape)
print(x.grad)
