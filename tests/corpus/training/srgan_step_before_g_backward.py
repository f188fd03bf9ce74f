# torch: raises one of the variables needed for gradient computation has been modified
# leftthomas/SRGAN#89: the discriminator's step changes its weights in place before the
# generator's backward through the discriminator output computed earlier.
import torch
import torch.nn as nn
import torch.optim as optim

netG = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 6))
netD = nn.Sequential(nn.Linear(6, 8), nn.LeakyReLU(0.2), nn.Linear(8, 1), nn.Sigmoid())
optimizerG = optim.Adam(netG.parameters())
optimizerD = optim.Adam(netD.parameters())
for _ in range(2):
    real_img, z = torch.randn(5, 6), torch.randn(5, 4)
    fake_img = netG(z)
    real_out = netD(real_img).mean()
    fake_out = netD(fake_img).mean()
    d_loss = 1 - real_out + fake_out
    optimizerD.zero_grad()
    d_loss.backward(retain_graph=True)
    optimizerD.step()  # expect: GL103, GL504
    g_loss = 1 - fake_out + 0.1 * (fake_img - real_img).pow(2).mean()
    optimizerG.zero_grad()
    g_loss.backward()
    optimizerG.step()
