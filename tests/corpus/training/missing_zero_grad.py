# torch: ok
# "Loss explodes": the loop never clears gradients, so the second backward doubles .grad.
import torch
import torch.nn as nn

model = nn.Linear(3, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.0)
x, y = torch.randn(4, 3), torch.randn(4, 1)
grads = []
for epoch in range(2):
    loss = ((model(x) - y) ** 2).mean()
    loss.backward()  # expect: GL503
    optimizer.step()
    grads.append(model.weight.grad.clone())
assert torch.allclose(grads[1], 2 * grads[0])
