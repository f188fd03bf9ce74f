# torch: ok
# REINFORCE at module level: `.item()` turns the policy-gradient term into a Python
# float, so only the entropy bonus trains the policy.
import torch
import torch.nn as nn
import torch.nn.functional as F

policy = nn.Linear(4, 3)
opt = torch.optim.Adam(policy.parameters(), lr=1e-2)
for episode in range(3):
    states, actions = torch.randn(5, 4), torch.randint(0, 3, (5,))
    advantage = torch.randn(())
    log_probs = F.log_softmax(policy(states), dim=-1)
    chosen = log_probs[torch.arange(5), actions]
    pg_loss = -(chosen.sum().item() * advantage)  # expect: GL201
    entropy = -(log_probs.exp() * log_probs).sum(-1).mean()
    loss = pg_loss - 0.01 * entropy
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"episode {episode}: loss {loss.item():.3f}")
assert pg_loss.grad_fn is None  # the policy-gradient term carries no gradient
