# An attention block taking either a boolean mask or an additive bias (not both): the
# bias the caller passes is scaled in place before it is added to the scores.
import torch
import torch.nn as nn


class Attention(nn.Module):
    def __init__(self, dim=4):
        super().__init__()
        self.qk = nn.Linear(dim, 2 * dim)

    def forward(self, x, mask=None, bias=None):
        if mask is not None and bias is not None:
            raise ValueError("mask and bias are exclusive")
        q, k = self.qk(x).chunk(2, dim=-1)
        scores = q @ k.transpose(-2, -1)
        if bias is not None:
            bias.mul_(0.5)  # expect: GL104
            scores = scores + bias
        return scores.softmax(-1)


bias = torch.randn(3, 3)
before = bias.clone()
Attention()(torch.randn(3, 4), bias=bias)
assert torch.equal(bias, before), "forward() changed its caller's tensor"
