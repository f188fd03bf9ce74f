# A module-level script normalises attention scores with exp_() then div_() in place:
# exp_ saves its result for backward, div_ overwrites it.
import torch

torch.manual_seed(0)
proj = torch.nn.Linear(6, 6)
tokens = torch.randn(3, 6)
scores = proj(tokens) @ tokens.t()
scores = scores - scores.max(dim=1, keepdim=True).values
scores.exp_()
scores.div_(scores.sum(dim=1, keepdim=True))  # expect: GL103
loss = (scores @ tokens).pow(2).mean()
loss.backward()
