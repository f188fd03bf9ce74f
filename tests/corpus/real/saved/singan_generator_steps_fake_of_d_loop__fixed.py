# source: https://github.com/tamarott/SinGAN/issues/140
# expect: clean
import argparse

import torch
import torch.nn as nn
import torch.optim as optim


class ConvBlock(nn.Sequential):
    def __init__(self, in_channel, out_channel, ker_size, padd, stride):
        super(ConvBlock, self).__init__()
        self.add_module("conv", nn.Conv2d(in_channel, out_channel, kernel_size=ker_size, stride=stride, padding=padd)),
        self.add_module("norm", nn.BatchNorm2d(out_channel)),
        self.add_module("LeakyRelu", nn.LeakyReLU(0.2, inplace=True))


class WDiscriminator(nn.Module):
    def __init__(self, opt):
        super(WDiscriminator, self).__init__()
        self.head = ConvBlock(opt.nc_im, opt.nfc, opt.ker_size, opt.padd_size, 1)
        self.tail = nn.Conv2d(opt.nfc, 1, kernel_size=opt.ker_size, stride=1, padding=opt.padd_size)

    def forward(self, x):
        return self.tail(self.head(x))


class GeneratorConcatSkip2CleanAdd(nn.Module):
    def __init__(self, opt):
        super(GeneratorConcatSkip2CleanAdd, self).__init__()
        self.head = ConvBlock(opt.nc_im, opt.nfc, opt.ker_size, opt.padd_size, 1)
        self.tail = nn.Sequential(nn.Conv2d(opt.nfc, opt.nc_im, kernel_size=opt.ker_size, stride=1, padding=opt.padd_size), nn.Tanh())

    def forward(self, x, y):
        x = self.head(x)
        x = self.tail(x)
        return x + y


def train_single_scale(netD, netG, real, opt):
    optimizerD = optim.Adam(netD.parameters(), lr=opt.lr_d, betas=(opt.beta1, 0.999))
    optimizerG = optim.Adam(netG.parameters(), lr=opt.lr_g, betas=(opt.beta1, 0.999))
    z_opt = torch.randn_like(real)
    for epoch in range(opt.niter):
        noise_ = torch.randn_like(real)
        ############################
        # (1) Update D network: maximize D(x) + D(G(z))
        ###########################
        for j in range(opt.Dsteps):
            netD.zero_grad()
            output = netD(real)
            errD_real = -output.mean()
            errD_real.backward(retain_graph=True)
            prev = torch.zeros_like(real)
            noise = opt.noise_amp * noise_ + prev
            fake = netG(noise.detach(), prev)
            output = netD(fake.detach())
            errD_fake = output.mean()
            errD_fake.backward(retain_graph=True)
            optimizerD.step()
        ############################
        # (2) Update G network: maximize D(G(z))
        ###########################
        for j in range(opt.Gsteps):
            netG.zero_grad()
            fake = netG(noise.detach(), prev)
            output = netD(fake)
            errG = -output.mean()
            errG.backward(retain_graph=True)
            if opt.alpha != 0:
                loss = nn.MSELoss()
                rec_loss = opt.alpha * loss(netG(z_opt.detach(), torch.zeros_like(real)), real)
                rec_loss.backward(retain_graph=True)
            optimizerG.step()


opt = argparse.Namespace(nc_im=3, nfc=8, ker_size=3, padd_size=1, lr_d=5e-4, lr_g=5e-4, beta1=0.5, niter=1, Dsteps=3, Gsteps=3, noise_amp=0.1, alpha=10)
netD = WDiscriminator(opt)
netG = GeneratorConcatSkip2CleanAdd(opt)
real = torch.rand(1, 3, 8, 8) * 2 - 1
train_single_scale(netD, netG, real, opt)
