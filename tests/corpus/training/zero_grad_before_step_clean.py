# torch: ok
# zero_grad at the start of each iteration, after step, with set_to_none; gradient
# accumulation that steps and clears every k batches; a GAN clearing the other net.
import torch
import torch.nn as nn

g, d = nn.Linear(2, 2), nn.Linear(2, 1)
opt_g = torch.optim.SGD(g.parameters(), lr=0.1)
opt_d = torch.optim.SGD(d.parameters(), lr=0.1)
for step, x in enumerate(torch.randn(4, 3, 2)):
    opt_d.zero_grad(set_to_none=True)
    d(x).mean().backward()
    opt_d.step()
    d(g(x)).mean().backward()
    if (step + 1) % 2 == 0:
        opt_g.step()
        opt_g.zero_grad()
loss = d(g(torch.randn(3, 2))).mean()
loss.backward()
opt_d.zero_grad()
opt_g.step()
opt_g.zero_grad()
