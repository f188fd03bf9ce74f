# exp() output normalised in place for a metric, under no_grad: no graph exists.
import torch
import torch.nn as nn

model = nn.Linear(4, 3)
x = torch.randn(5, 4)
with torch.no_grad():
    probs = model(x).exp()
    probs /= probs.sum(dim=1, keepdim=True)
    confidence = probs.max(dim=1).values
loss = model(x).logsumexp(dim=1).mean()
loss.backward()
