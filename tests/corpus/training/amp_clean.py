# torch: ok
# An AMP loop: scaler.scale(loss).backward(), scaler.step(optimizer), scaler.update(),
# with zero_grad(set_to_none=True) at the end of each iteration.
import torch
import torch.nn as nn

model = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 2))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.amp.GradScaler("cpu")
loss_fn = nn.CrossEntropyLoss()
for _ in range(3):
    x, y = torch.randn(4, 6), torch.randint(0, 2, (4,))
    with torch.autocast("cpu", dtype=torch.bfloat16):
        loss = loss_fn(model(x), y)
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    scaler.step(optimizer)
    scaler.update()
    optimizer.zero_grad(set_to_none=True)
