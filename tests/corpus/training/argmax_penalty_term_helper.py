# torch: ok
# A consistency penalty computed from argmax predictions in a loss helper, added to the
# cross-entropy: argmax has no gradient, so the penalty changes the loss value but never
# the gradient, whatever its weight.
import torch
import torch.nn as nn
import torch.nn.functional as F


def coarse_fine_loss(coarse_logits, fine_logits, fine_to_coarse, labels, weight=0.5):
    ce = F.cross_entropy(fine_logits, labels)
    fine_pred = fine_logits.argmax(dim=1)  # expect: GL203
    coarse_pred = coarse_logits.argmax(dim=1)
    mismatch = (fine_to_coarse[fine_pred] != coarse_pred).float().mean()
    return ce + weight * mismatch, mismatch


model = nn.Linear(6, 2 + 4)
fine_to_coarse = torch.tensor([0, 0, 1, 1])
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(2):
    x, labels = torch.randn(8, 6), torch.randint(0, 4, (8,))
    out = model(x)
    loss, mismatch = coarse_fine_loss(out[:, :2], out[:, 2:], fine_to_coarse, labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
assert mismatch.grad_fn is None  # the penalty is a constant for autograd
