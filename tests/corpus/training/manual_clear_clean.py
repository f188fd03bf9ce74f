# torch: ok
# Gradients cleared by hand (p.grad = None / p.grad.zero_()), a warm-up scheduler whose
# step() comes first, and a teacher whose detached output is only a target.
import torch
import torch.nn as nn

student = nn.Linear(4, 3)
teacher = nn.Linear(4, 3)
teacher.eval()
optimizer = torch.optim.SGD(student.parameters(), lr=0.1)
scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: min(1.0, (step + 1) / 3))
for step in range(3):
    scheduler.step()
    for p in student.parameters():
        p.grad = None
    x = torch.randn(5, 4)
    with torch.no_grad():
        soft_targets = teacher(x).softmax(-1)
    log_probs = student(x).log_softmax(-1)
    loss = -(soft_targets * log_probs).sum(-1).mean()
    loss.backward()
    optimizer.step()
for _ in range(2):
    for p in student.parameters():
        if p.grad is not None:
            p.grad.zero_()
    target = teacher(torch.randn(5, 4)).detach()
    loss = nn.functional.mse_loss(student(torch.randn(5, 4)), target)
    loss.backward()
    optimizer.step()
