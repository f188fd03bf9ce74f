# source: https://github.com/pytorch/pytorch/issues/39141
# expect: one of the variables needed for gradient computation has been modified by an inplace operation
# buggy-line: 62
# also-line: 59
# mechanism: `fake` is generated once before a loop of generator steps; `optimizerG.step()` edits netG's weights in place, and the next iteration back-propagates through the old `fake` again (retain_graph=True)
import argparse

import torch
import torch.nn as nn
import torch.optim as optim

parser = argparse.ArgumentParser()
parser.add_argument("--nc_z", type=int, default=3)
parser.add_argument("--Dsteps", type=int, default=1)
parser.add_argument("--Gsteps", type=int, default=3)
parser.add_argument("--alpha", type=float, default=10)
parser.add_argument("--lr_g", type=float, default=5e-4)
parser.add_argument("--lr_d", type=float, default=5e-4)
opt = parser.parse_args([])


def conv_block(in_ch, out_ch):
    return nn.Sequential(nn.Conv2d(in_ch, out_ch, 3, padding=1), nn.BatchNorm2d(out_ch), nn.LeakyReLU(0.2, inplace=True))


class GeneratorConcatSkip2CleanAdd(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = conv_block(opt.nc_z, 4)
        self.tail = nn.Sequential(nn.Conv2d(4, 3, 3, padding=1), nn.Tanh())

    def forward(self, x, y):
        return self.tail(self.head(x)) + y


netG = GeneratorConcatSkip2CleanAdd()
netD = nn.Sequential(conv_block(3, 4), nn.Conv2d(4, 1, 3, padding=1))
optimizerD = optim.Adam(netD.parameters(), lr=opt.lr_d, betas=(0.5, 0.999))
optimizerG = optim.Adam(netG.parameters(), lr=opt.lr_g, betas=(0.5, 0.999))
real = torch.rand(1, 3, 8, 8)
z_opt = torch.randn(1, opt.nc_z, 8, 8)
prev = torch.zeros_like(real)

for epoch in range(1):
    noise = torch.randn(1, opt.nc_z, 8, 8)
    for j in range(opt.Dsteps):
        netD.zero_grad()
        errD_real = -netD(real).mean()
        errD_real.backward(retain_graph=True)
        fake = netG(noise, prev)
        errD_fake = netD(fake.detach()).mean()
        errD_fake.backward(retain_graph=True)
        optimizerD.step()

    for j in range(opt.Gsteps):
        netG.zero_grad()
        output = netD(fake)
        errG = -output.mean()
        errG.backward(retain_graph=True)
        rec_loss = opt.alpha * nn.MSELoss()(netG(z_opt, prev), real)
        rec_loss.backward(retain_graph=True)
        optimizerG.step()
