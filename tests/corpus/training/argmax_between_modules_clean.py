# torch: ok
# argmax feeding another module where the graph before it is trained anyway: greedy
# decoding (the logits of every step are in the loss) and a double-DQN target (argmax of
# the online network selects the target network's value).
import torch
import torch.nn as nn
import torch.nn.functional as F

embed, cell, head = nn.Embedding(5, 4), nn.GRUCell(4, 4), nn.Linear(4, 5)
opt = torch.optim.SGD([*embed.parameters(), *cell.parameters(), *head.parameters()], lr=0.1)
targets = torch.randint(0, 5, (3, 2))
h, token = torch.zeros(2, 4), torch.zeros(2, dtype=torch.long)
step_logits = []
for t in range(3):
    h = cell(embed(token), h)
    logits = head(h)
    step_logits.append(logits)
    token = logits.argmax(dim=-1)
loss = F.cross_entropy(torch.stack(step_logits).view(-1, 5), targets.view(-1))
opt.zero_grad()
loss.backward()
opt.step()
assert embed.weight.grad is not None and head.weight.grad is not None

online, target_net = nn.Linear(4, 2), nn.Linear(4, 2)
q_opt = torch.optim.SGD(online.parameters(), lr=0.1)
s, s2, a, r = torch.randn(6, 4), torch.randn(6, 4), torch.randint(0, 2, (6, 1)), torch.randn(6)
next_a = online(s2).argmax(dim=1, keepdim=True)
target = r + 0.9 * target_net(s2).gather(1, next_a).squeeze(1).detach()
q_loss = F.mse_loss(online(s).gather(1, a).squeeze(1), target)
q_opt.zero_grad()
q_loss.backward()
q_opt.step()
assert online.weight.grad is not None
