"""Per-chunk losses of a batch cut with chunk(3) and zipped with its targets: stacked,
they form a vector of three losses, and backward() without a gradient needs a scalar."""
# torch: grad can be implicitly created only for scalar outputs
import torch
import torch.nn as nn
import torch.nn.functional as F

model = nn.Linear(4, 1)
x, y = torch.randn(6, 4), torch.randn(6, 1)
losses = torch.stack([F.mse_loss(model(xb), yb) for xb, yb in zip(x.chunk(3), y.chunk(3))])
losses.backward()  # expect: GL302
