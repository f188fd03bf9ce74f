"""reduction='none' loss backpropagated without reducing (Liger-Kernel#435 background)."""
# torch: grad can be implicitly created only for scalar outputs
import torch
import torch.nn as nn

criterion = nn.CrossEntropyLoss(reduction="none")
logits = torch.randn(8, 5, requires_grad=True)
target = torch.randint(0, 5, (8,))
loss = criterion(logits, target)
loss.backward()  # expect: GL302
