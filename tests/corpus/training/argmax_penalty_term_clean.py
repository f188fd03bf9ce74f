# torch: ok
# Look-alikes of an argmax penalty that are fine: argmax for accuracy (logged, not in the
# loss), argmax as an index into the differentiable log-probabilities, and a
# straight-through one-hot whose gradient flows through the softmax.
import torch
import torch.nn as nn
import torch.nn.functional as F

model = nn.Linear(6, 4)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(2):
    x, labels = torch.randn(8, 6), torch.randint(0, 4, (8,))
    logits = model(x)
    log_probs = F.log_softmax(logits, dim=1)
    greedy = log_probs[torch.arange(8), log_probs.argmax(dim=1)]
    soft = logits.softmax(dim=1)
    hard = F.one_hot(soft.argmax(dim=1), 4).float()
    straight_through = hard - soft.detach() + soft
    loss = F.nll_loss(log_probs, labels) - 0.1 * greedy.mean() + (straight_through * soft).sum()
    accuracy = (logits.argmax(dim=1) == labels).float().mean().item()
    opt.zero_grad()
    loss.backward()
    opt.step()
assert model.weight.grad is not None and model.weight.grad.abs().sum() > 0
