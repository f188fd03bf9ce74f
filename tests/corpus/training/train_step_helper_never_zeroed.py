# torch: ok
# The update lives in a helper the loop calls: the helper runs backward() and step() but
# nothing on the way clears the gradients, so each step applies their running sum.
import torch
import torch.nn as nn

model = nn.Linear(3, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.0)


def train_step(net, opt, x, y):
    loss = nn.functional.mse_loss(net(x), y)
    loss.backward()
    opt.step()
    return net.weight.grad.clone()


x, y = torch.randn(4, 3), torch.randn(4, 1)
grads = []
for epoch in range(2):
    grads.append(train_step(model, optimizer, x, y))  # expect: GL503
assert torch.allclose(grads[1], 2 * grads[0])
