# source: https://github.com/martinarjovsky/WassersteinGAN/blob/master/main.py
# expect: clean
# note: the critic's weights are clipped through `p.data.clamp_` after optimizerD.step() and before the next forward
import argparse

import torch
import torch.nn as nn
import torch.optim as optim

parser = argparse.ArgumentParser()
parser.add_argument("--nz", type=int, default=4)
parser.add_argument("--Diters", type=int, default=2)
parser.add_argument("--clamp_lower", type=float, default=-0.01)
parser.add_argument("--clamp_upper", type=float, default=0.01)
parser.add_argument("--lrD", type=float, default=5e-5)
parser.add_argument("--lrG", type=float, default=5e-5)
opt = parser.parse_args([])

netG = nn.Sequential(nn.Linear(opt.nz, 8), nn.ReLU(True), nn.Linear(8, 6))
netD = nn.Sequential(nn.Linear(6, 8), nn.LeakyReLU(0.2, inplace=True), nn.Linear(8, 1))
optimizerD = optim.RMSprop(netD.parameters(), lr=opt.lrD)
optimizerG = optim.RMSprop(netG.parameters(), lr=opt.lrG)
one = torch.tensor(1.0)
mone = one * -1

for gen_iterations in range(2):
    for p in netD.parameters():
        p.requires_grad = True
    for _ in range(opt.Diters):
        for p in netD.parameters():
            p.data.clamp_(opt.clamp_lower, opt.clamp_upper)
        netD.zero_grad()
        real = torch.randn(4, 6)
        errD_real = netD(real).mean()
        errD_real.backward(one)
        with torch.no_grad():
            fake = netG(torch.randn(4, opt.nz))
        errD_fake = netD(fake).mean()
        errD_fake.backward(mone)
        optimizerD.step()
    for p in netD.parameters():
        p.requires_grad = False
    netG.zero_grad()
    errG = netD(netG(torch.randn(4, opt.nz))).mean()
    errG.backward(one)
    optimizerG.step()
