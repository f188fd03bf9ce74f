# torch: RuntimeError: you can only change requires_grad flags of leaf variables
# A saliency explainer object marks the batch it explains as requiring grad; the first
# call is on the clean batch, then a noise-averaging loop calls it on `batch + noise`,
# which the first call turned into a non-leaf.
import torch
import torch.nn as nn


class Saliency:
    def __init__(self, model):
        self.model = model

    def __call__(self, x):
        x.requires_grad = True  # expect: GL204
        self.model(x).max(dim=1).values.sum().backward()
        return x.grad.abs()


model = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 3))
explain = Saliency(model)
batch = torch.randn(5, 6)
maps = [explain(batch)]
for sigma in (0.1, 0.2):
    maps.append(explain(batch + sigma * torch.randn_like(batch)))
