# torch: raises Trying to backward through the graph a second time
# The running loss keeps every earlier batch's graph; backward on it each batch goes
# through the previous batch's graph again.
import torch
import torch.nn as nn
import torch.nn.functional as F

model = nn.Linear(3, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
batches = [(torch.randn(4, 3), torch.randn(4, 1)) for _ in range(3)]
total_loss = 0.0
for x, y in batches:
    optimizer.zero_grad()
    total_loss = total_loss + F.mse_loss(model(x), y)
    total_loss.backward()  # expect: GL305
    optimizer.step()
