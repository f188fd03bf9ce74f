# source: https://github.com/pytorch/examples/blob/main/dcgan/main.py
# expect: clean
import torch
import torch.nn as nn

nz = 4
netG = nn.Sequential(nn.Linear(nz, 12), nn.Tanh())
netD = nn.Sequential(nn.Linear(12, 1), nn.Sigmoid())
criterion = nn.BCELoss()
optimizerD = torch.optim.Adam(netD.parameters(), lr=2e-4, betas=(0.5, 0.999))
optimizerG = torch.optim.Adam(netG.parameters(), lr=2e-4, betas=(0.5, 0.999))
real_label, fake_label = 1.0, 0.0

for i in range(2):
    real_cpu = torch.randn(3, 12)
    netD.zero_grad()
    label = torch.full((3,), real_label)
    errD_real = criterion(netD(real_cpu).view(-1), label)
    errD_real.backward()
    noise = torch.randn(3, nz)
    fake = netG(noise)
    label.fill_(fake_label)
    errD_fake = criterion(netD(fake.detach()).view(-1), label)
    errD_fake.backward()
    optimizerD.step()

    netG.zero_grad()
    label.fill_(real_label)
    errG = criterion(netD(fake).view(-1), label)
    errG.backward()
    optimizerG.step()
