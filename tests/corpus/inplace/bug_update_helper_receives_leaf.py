# A helper doing the SGD step, called with a leaf that requires grad.
import torch


def sgd_update(param, lr):
    param -= lr * param.grad  # expect: GL101


w = torch.randn(3, requires_grad=True)
(w * w).sum().backward()
sgd_update(w, 0.1)
