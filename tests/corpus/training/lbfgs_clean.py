# torch: ok
# LBFGS: backward runs inside the closure the optimizer calls, after its zero_grad.
import torch
import torch.nn as nn

model = nn.Linear(3, 1)
optimizer = torch.optim.LBFGS(model.parameters(), lr=0.5, max_iter=4)
x, y = torch.randn(10, 3), torch.randn(10, 1)
for _ in range(3):

    def closure():
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        return loss

    optimizer.step(closure)
