# torch: ok
# A helper sums discounted log-probabilities read out with `.item()` into a loss that
# starts as a leaf: backward runs, but the policy's parameters get no gradient.
import torch
import torch.nn as nn
import torch.nn.functional as F


def reinforce_loss(log_probs, rewards, gamma=0.9):
    loss = torch.zeros((), requires_grad=True)
    discount = 1.0
    for log_prob, reward in zip(log_probs, rewards):
        loss = loss - log_prob.item() * reward * discount  # expect: GL201
        discount = discount * gamma
    return loss


policy = nn.Linear(4, 2)
log_probs = [F.log_softmax(policy(torch.randn(1, 4)), dim=-1)[0, 1] for _ in range(3)]
loss = reinforce_loss(log_probs, [1.0, 0.5, 2.0])
loss.backward()
assert policy.weight.grad is None
