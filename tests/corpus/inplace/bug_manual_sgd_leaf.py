# Manual SGD on a leaf outside no_grad (BaiTheBest/SparseLLM#13).
import torch

w = torch.randn(5, requires_grad=True)
x = torch.randn(8, 5)
lr = 0.1
for step in range(3):
    loss = (x @ w).pow(2).mean()
    loss.backward()
    w -= lr * w.grad  # expect: GL101
    w.grad.zero_()
