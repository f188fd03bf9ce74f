# source: https://www.yongfengli.tk/2018/04/13/inplace-operation-in-pytorch.html
# expect: one of the variables needed for gradient computation has been modified by an inplace operation
# buggy-line: 20
# mechanism: torch.mm(self.param, b) saves b for the gradient of self.param; the next pass of the loop assigns into b[i]
import torch
import torch.nn as nn
from torch.autograd import Variable


class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.param = nn.Parameter(torch.randn(10, 10))

    def forward(self,a):
        b = Variable(torch.Tensor(10,1))
        y = 0
        b = torch.mm(self.param,a)
        for i in range(10):
            b[i] = b[i] + 1 #inpalce operation
            y = y + torch.mm(self.param,b)
        return y


net = Net()
out = net(torch.randn(10, 1))
out.sum().backward()
