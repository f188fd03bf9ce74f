# source: https://github.com/pytorch/pytorch/pull/12199
# expect: one of the variables needed for gradient computation has been modified by an inplace operation
# buggy-line: 13
# mechanism: a hand-written cosine similarity multiplies the two norms in place (`w1.mul_(w2)`); `norm` saved its output for backward
import torch
import torch.nn as nn


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    w12 = torch.sum(x1 * x2, dim)
    w1 = torch.norm(x1, 2, dim)
    w2 = torch.norm(x2, 2, dim)
    return w12.div_(w1.mul_(w2).clamp_min_(eps))


class DualEncoder(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.query = nn.Linear(10, dim)
        self.doc = nn.Linear(12, dim)

    def forward(self, q, d):
        return cosine_similarity(self.query(q), self.doc(d))


model = DualEncoder()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
q, d, label = torch.randn(4, 10), torch.randn(4, 12), torch.tensor([1.0, -1.0, 1.0, -1.0])
optimizer.zero_grad()
loss = ((model(q, d) - label) ** 2).mean()
loss.backward()
optimizer.step()
