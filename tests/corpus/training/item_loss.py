# torch: raises element 0 of tensors does not require grad and does not have a grad_fn
# The loss is rebuilt from Python floats with torch.tensor(): no graph reaches it.
import torch
import torch.nn as nn

model = nn.Linear(3, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
criterion = nn.MSELoss()
for _ in range(2):
    optimizer.zero_grad()
    pred = model(torch.randn(4, 3))
    batch_loss = criterion(pred, torch.randn(4, 1)).item()  # expect: GL201
    loss = torch.tensor(batch_loss)
    loss.backward()
    optimizer.step()
