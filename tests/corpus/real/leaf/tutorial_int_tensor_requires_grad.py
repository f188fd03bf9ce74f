# source: https://github.com/yunjey/pytorch-tutorial/pull/128
# expect: Only Tensors of floating point and complex dtype can require gradients
# buggy-line: 13
# also-line: 14
# also-line: 15
# mechanism: `torch.tensor(1, requires_grad=True)`: an integer literal makes an int64 tensor, which cannot require grad
import torch
import torch.nn as nn

# ================================================================== #
#                         1. Basic autograd example 1                #
# ================================================================== #
x = torch.tensor(1, requires_grad=True)
w = torch.tensor(2, requires_grad=True)
b = torch.tensor(3, requires_grad=True)
y = w * x + b
y.backward()
print(x.grad)
print(w.grad)
print(b.grad)

# ================================================================== #
#                         2. Basic autograd example 2                #
# ================================================================== #
x = torch.randn(10, 3)
y = torch.randn(10, 2)
linear = nn.Linear(3, 2)
criterion = nn.MSELoss()
optimizer = torch.optim.SGD(linear.parameters(), lr=0.01)
loss = criterion(linear(x), y)
loss.backward()
optimizer.step()
