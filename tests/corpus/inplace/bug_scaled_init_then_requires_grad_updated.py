# A from-scratch MLP makes its weights as `torch.randn(...) * 0.01` and then
# `.requires_grad_()`: they are leaves, and the manual SGD step edits them in place while
# autograd records.
import torch

torch.manual_seed(0)
W1 = (torch.randn(4, 8) * 0.01).requires_grad_()
W2 = (torch.randn(8, 1) / 8).requires_grad_()
X, y = torch.randn(16, 4), torch.randn(16, 1)
lr = 0.1
for epoch in range(3):
    loss = (torch.relu(X @ W1) @ W2 - y).pow(2).mean()
    loss.backward()
    W1 -= lr * W1.grad  # expect: GL101
    W2 -= lr * W2.grad  # expect: GL101
    W1.grad.zero_()
    W2.grad.zero_()
