# reshape of a transposed (non-contiguous) tanh output copies: editing the copy leaves
# the tensor tanh saved alone; exp_ under no_grad saves nothing.
import torch
import torch.nn as nn

head = nn.Linear(5, 6)
obs = torch.randn(4, 5)
flat = torch.tanh(head(obs)).t().reshape(-1)
flat[:3] *= 0.5
flat.sum().backward()

with torch.no_grad():
    scores = head(obs)
    scores.exp_()
    scores.div_(scores.sum(dim=1, keepdim=True))

out = head(obs)
out.mul_(2)
out.add_(1)
out.sum().backward()
