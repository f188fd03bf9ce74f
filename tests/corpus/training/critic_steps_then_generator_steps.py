# torch: raises one of the variables needed for gradient computation has been modified by an inplace operation
# A GAN step helper: the fake batch is made inside the critic loop (N_CRITIC = 1, so it
# always runs) and reused by several generator steps with retain_graph=True; the first
# generator step updates the weights the fake's graph saved.
import torch
import torch.nn as nn

N_CRITIC = 1
G_STEPS = 2


def train_step(netG, netD, optG, optD, noise, real):
    for _ in range(N_CRITIC):
        optD.zero_grad()
        fake = netG(noise)
        loss_d = netD(fake.detach()).mean() - netD(real).mean()
        loss_d.backward()
        optD.step()
    for _ in range(G_STEPS):
        optG.zero_grad()
        loss_g = -netD(fake).mean()
        loss_g.backward(retain_graph=True)
        optG.step()  # expect: GL103, GL504


netG = nn.Sequential(nn.Linear(2, 8), nn.ReLU(), nn.Linear(8, 4))
netD = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
optG = torch.optim.Adam(netG.parameters(), lr=1e-3)
optD = torch.optim.Adam(netD.parameters(), lr=1e-3)
train_step(netG, netD, optG, optD, torch.randn(6, 2), torch.randn(6, 4))
