# source: https://programmerteach.com/p/concerning-pytorch-under-gan-loss-target-backward-and-step-and-other-precautions
# expect: clean
# note: both GAN losses are back-propagated (D's flags turned off for G's loss) before either optimizer steps, so no step edits weights a pending graph saved
import torch
from torch import nn


def set_requires_grad(net: nn.Module, mode=True):
    for p in net.parameters():
        p.requires_grad_(mode)


X = torch.ones(size=[1, 1, 1, 1]).requires_grad_(False)
G = nn.Conv2d(1, 1, kernel_size=1, stride=1, padding=0, bias=False)
G.weight.data.fill_(0.5)
G_optim = torch.optim.SGD(G.parameters(), lr=1.0)
D = nn.Conv2d(1, 1, kernel_size=1, stride=1, padding=0, bias=False)
D.weight.data.fill_(0.7)
D_optim = torch.optim.SGD(D.parameters(), lr=1.0)

for _ in range(2):
    G_optim.zero_grad()
    D_optim.zero_grad()
    Y = G(X)
    D_loss = (D(Y.detach()) ** 2).sum()
    G_loss = (D(Y) ** 2).sum()
    D_loss.backward(retain_graph=True)
    set_requires_grad(D, False)
    G_loss.backward()
    set_requires_grad(D, True)
    G_optim.step()
    D_optim.step()
print(G.weight.detach(), D.weight.detach())
