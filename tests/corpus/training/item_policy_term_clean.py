# torch: ok
# `.item()` only for logging and for a baseline that is data: the policy-gradient term
# keeps the log-probabilities' graph.
import torch
import torch.nn as nn
import torch.nn.functional as F


def reinforce_loss(log_probs, rewards, baseline):
    loss = torch.zeros(())
    for log_prob, reward in zip(log_probs, rewards):
        loss = loss - log_prob * (reward - baseline)
    return loss


policy = nn.Linear(4, 2)
opt = torch.optim.SGD(policy.parameters(), lr=0.1)
running = 0.0
for episode in range(2):
    log_probs = [F.log_softmax(policy(torch.randn(1, 4)), dim=-1)[0, 1] for _ in range(3)]
    rewards = [1.0, 0.5, 2.0]
    baseline = sum(rewards) / len(rewards)
    loss = reinforce_loss(log_probs, rewards, baseline)
    opt.zero_grad()
    loss.backward()
    opt.step()
    running = 0.9 * running + 0.1 * loss.item()
    print(f"loss {loss.item():.3f}, running {running:.3f}")
assert policy.weight.grad is not None
