# torch: ok
# DCGAN-style loop: the discriminator sees fake.detach(), its output is recomputed after
# its step, the generator step backpropagates through the fresh output.
import torch
import torch.nn as nn
import torch.optim as optim

nz = 4
netG = nn.Sequential(nn.Linear(nz, 8), nn.ReLU(), nn.Linear(8, 6), nn.Tanh())
netD = nn.Sequential(nn.Linear(6, 8), nn.LeakyReLU(0.2), nn.Linear(8, 1), nn.Sigmoid())
criterion = nn.BCELoss()
optimizerD = optim.Adam(netD.parameters(), lr=0.0002, betas=(0.5, 0.999))
optimizerG = optim.Adam(netG.parameters(), lr=0.0002, betas=(0.5, 0.999))
real_label, fake_label = 1.0, 0.0
dataloader = [torch.randn(5, 6) for _ in range(3)]

for epoch in range(2):
    for i, data in enumerate(dataloader):
        netD.zero_grad()
        real_cpu = data
        batch_size = real_cpu.size(0)
        label = torch.full((batch_size,), real_label)
        output = netD(real_cpu).view(-1)
        errD_real = criterion(output, label)
        errD_real.backward()
        D_x = output.mean().item()

        noise = torch.randn(batch_size, nz)
        fake = netG(noise)
        label.fill_(fake_label)
        output = netD(fake.detach()).view(-1)
        errD_fake = criterion(output, label)
        errD_fake.backward()
        D_G_z1 = output.mean().item()
        errD = errD_real + errD_fake
        optimizerD.step()

        netG.zero_grad()
        label.fill_(real_label)
        output = netD(fake).view(-1)
        errG = criterion(output, label)
        errG.backward()
        D_G_z2 = output.mean().item()
        optimizerG.step()
        print(f"[{epoch}][{i}] Loss_D: {errD.item():.4f} Loss_G: {errG.item():.4f}")
