# source: https://github.com/hhsecond/HandsOnDeepLearningWithPytorch/issues/2
# expect: 'NoneType' object has no attribute 'data'
# buggy-line: 32
# also-line: 58
# mechanism: requires_grad=True is set on the tensor before .type(dtype) converts it: the weights used are copies (non-leaf), .grad of w1 stays None; the data helpers come from another module
##########################################################################
# Author Sherin Thomas
# PyTorch Version 1.0
# Program for predicting the next number whether its a
# fiz or buz or fizbuz
###########################################################################

import torch

from fizbuz_data.dataset import get_data, decoder, check_fizbuz


input_size = 10
epochs = 20
batches = 64
lr = 0.01
hidden_size = 100
output_size = 4


trX, trY, teX, teY = get_data(input_size)
# stands for torch.cuda.FloatTensor when cuda is available: a .type() that converts
dtype = torch.DoubleTensor
x = torch.from_numpy(trX).type(dtype)
y = torch.from_numpy(trY).type(dtype)

w1 = torch.randn(input_size, hidden_size, requires_grad=True).type(dtype)
w2 = torch.randn(hidden_size, output_size, requires_grad=True).type(dtype)

b1 = torch.zeros(1, hidden_size, requires_grad=True).type(dtype)
b2 = torch.zeros(1, output_size, requires_grad=True).type(dtype)

no_of_batches = int(len(trX) / batches)
for epoch in range(epochs):
    for batch in range(no_of_batches):
        start = batch * batches
        end = start + batches
        x_ = x[start:end]
        y_ = y[start:end]

        a2 = x_.matmul(w1)
        a2 = a2.add(b1)
        h2 = a2.sigmoid()

        a3 = h2.matmul(w2)
        a3 = a3.add(b2)
        hyp = a3.sigmoid()

        error = hyp - y_
        output = error.pow(2).sum() / 2.0
        output.backward()

        w1.data -= lr * w1.grad.data
        w2.data -= lr * w2.grad.data
        b1.data -= lr * b1.grad.data
        b2.data -= lr * b2.grad.data
        w1.grad.data.zero_()
        w2.grad.data.zero_()
        b1.grad.data.zero_()
        b2.grad.data.zero_()
    if epoch % 10:
        print(epoch, output.item())
