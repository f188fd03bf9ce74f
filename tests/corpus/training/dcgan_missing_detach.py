# torch: raises Trying to backward through the graph a second time
# pytorch/examples#116: the discriminator loss backpropagates into the generator's graph
# (no fake.detach()), which frees it before the generator's own backward.
import torch
import torch.nn as nn
import torch.optim as optim

netG = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 6))
netD = nn.Sequential(nn.Linear(6, 8), nn.LeakyReLU(0.2), nn.Linear(8, 1), nn.Sigmoid())
criterion = nn.BCELoss()
optimizerD = optim.Adam(netD.parameters(), lr=0.0002)
optimizerG = optim.Adam(netG.parameters(), lr=0.0002)

for i in range(2):
    netD.zero_grad()
    real = torch.randn(5, 6)
    errD_real = criterion(netD(real).view(-1), torch.ones(5))
    errD_real.backward()
    fake = netG(torch.randn(5, 4))
    errD_fake = criterion(netD(fake).view(-1), torch.zeros(5))
    errD_fake.backward()
    optimizerD.step()
    netG.zero_grad()
    output = netD(fake).view(-1)
    errG = criterion(output, torch.ones(5))
    errG.backward()  # expect: GL305
    optimizerG.step()
