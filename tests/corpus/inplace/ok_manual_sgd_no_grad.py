# Manual SGD done right: the update runs under torch.no_grad().
import torch

w = torch.randn(5, requires_grad=True)
x = torch.randn(8, 5)
for step in range(3):
    loss = (x @ w).pow(2).mean()
    loss.backward()
    with torch.no_grad():
        w -= 0.1 * w.grad
    w.grad.zero_()
