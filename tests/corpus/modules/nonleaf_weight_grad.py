# torch: TypeError: unsupported operand type(s) for *: 'NoneType' and 'float'
# A weight scaled after requires_grad=True is a non-leaf: its .grad stays None, and a
# manual SGD step in a training helper fails.
import torch


class Scratch:
    def __init__(self):
        self.w = torch.randn(6, 2, requires_grad=True) * 0.1
        self.b = torch.zeros(2, requires_grad=True)

    def step(self, x, lr=0.1):
        loss = (x @ self.w + self.b).pow(2).mean()
        loss.backward()
        with torch.no_grad():
            self.b -= self.b.grad * lr
            self.w -= self.w.grad * lr  # expect: GL206


Scratch().step(torch.randn(3, 6))
