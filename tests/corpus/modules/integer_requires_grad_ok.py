# torch: ok
# Float tensors that require grad, and integer tensors that do not.
import torch
import torch.nn as nn

x = torch.tensor(1.0, requires_grad=True)
w = torch.tensor([1, 2], dtype=torch.float32, requires_grad=True)
counts = torch.arange(4)
scores = torch.randn(4, 3, requires_grad=True)
values, indices = torch.max(scores, dim=1)
values.sum().backward()
model = nn.Linear(3, 3)
model.weight.data = model.weight.data.round().float()
ids = torch.randint(0, 3, (4,)).float().requires_grad_()
