"""reduction='none' loss weighted per sample, then averaged before backward."""
import torch
import torch.nn as nn

criterion = nn.CrossEntropyLoss(reduction="none")
logits = torch.randn(8, 5, requires_grad=True)
target = torch.randint(0, 5, (8,))
loss = criterion(logits, target) * torch.rand(8)
loss.mean().backward()
