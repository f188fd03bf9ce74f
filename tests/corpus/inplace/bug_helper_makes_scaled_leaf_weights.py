# A helper scales random weights and then calls requires_grad_(): the caller gets a leaf
# that requires grad and updates it in place outside no_grad.
import torch

def make_weights(n):
    w = torch.randn(n, n) * 0.01
    w.requires_grad_()
    return w

W = make_weights(4)
x = torch.randn(3, 4)
for step in range(2):
    y = torch.tanh(x @ W)
    loss = y.pow(2).sum()
    loss.backward()
    W.sub_(0.1 * W.grad)  # expect: GL101
