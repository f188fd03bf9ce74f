# A forward() that standardises its input in place: the caller's batch changes.
import torch
import torch.nn as nn


class Standardise(nn.Module):
    def forward(self, x: torch.Tensor):
        x.sub_(x.mean())  # expect: GL104
        return x


batch = torch.randn(8) * 3 + 1
before = batch.clone()
Standardise()(batch)
assert torch.equal(batch, before), "forward() changed its caller's tensor"
