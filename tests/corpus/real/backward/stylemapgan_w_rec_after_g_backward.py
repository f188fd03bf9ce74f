# source: https://github.com/naver-ai/StyleMapGAN/issues/16
# expect: Trying to backward through the graph a second time
# buggy-line: 102
# also-line: 96
import argparse

import torch
from torch import nn, optim
from torch.nn import functional as F


def g_nonsaturating_loss(fake_pred):
    return F.softplus(-fake_pred).mean()


def requires_grad(model, flag=True):
    for p in model.parameters():
        p.requires_grad = flag


class Generator(nn.Module):
    def __init__(self, latent_dim, latent_channel_size, latent_spatial_size):
        super().__init__()
        self.latent_channel_size = latent_channel_size
        self.latent_spatial_size = latent_spatial_size
        self.mapping_z = nn.Sequential(nn.Linear(latent_dim, latent_dim), nn.LeakyReLU(0.2))
        self.to_stylecode = nn.Linear(latent_dim, latent_channel_size * latent_spatial_size * latent_spatial_size)
        self.synthesis = nn.Sequential(nn.Conv2d(latent_channel_size, 8, 3, padding=1), nn.LeakyReLU(0.2), nn.Conv2d(8, 3, 1))

    def forward(self, z, return_stylecode=False):
        stylecode = self.to_stylecode(self.mapping_z(z))
        stylecode = stylecode.view(-1, self.latent_channel_size, self.latent_spatial_size, self.latent_spatial_size)
        image = self.synthesis(stylecode)
        if return_stylecode:
            return image, stylecode
        return image


class Encoder(nn.Module):
    def __init__(self, latent_channel_size):
        super().__init__()
        self.net = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.LeakyReLU(0.2), nn.Conv2d(8, latent_channel_size, 1))

    def forward(self, image):
        return self.net(image)


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.LeakyReLU(0.2), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, 1))

    def forward(self, image):
        return self.net(image)


class DDPModel(nn.Module):
    def __init__(self, device, args):
        super(DDPModel, self).__init__()
        self.generator = Generator(args.latent_dim, args.latent_channel_size, args.latent_spatial_size)
        self.encoder = Encoder(args.latent_channel_size)
        self.discriminator = Discriminator()
        self.device = device
        self.args = args

    def forward(self, real_img, mode):
        if mode == "G":
            z = torch.randn(self.args.batch_per_gpu, self.args.latent_dim, device=self.device)
            fake_img, stylecode = self.generator(z, return_stylecode=True)
            fake_pred = self.discriminator(fake_img)
            adv_loss = g_nonsaturating_loss(fake_pred)
            fake_img = fake_img.detach()
            fake_stylecode = self.encoder(fake_img)
            w_rec_loss = F.mse_loss(stylecode, fake_stylecode)
            return adv_loss, w_rec_loss, stylecode


args = argparse.Namespace(
    lr=0.002, latent_dim=16, latent_channel_size=4, latent_spatial_size=4, batch_per_gpu=2, lambda_adv_loss=1, lambda_w_rec_loss=1
)
model = DDPModel(device="cpu", args=args)
model.train()
g_module = model.generator
e_module = model.encoder
g_optim = optim.Adam(g_module.parameters(), lr=args.lr, betas=(0.0, 0.99))
e_optim = optim.Adam(e_module.parameters(), lr=args.lr, betas=(0.0, 0.99))
requires_grad(model.discriminator, False)

for i in range(2):
    adv_loss, w_rec_loss, stylecode = model(None, "G")
    adv_loss = adv_loss.mean()
    g_loss = adv_loss * args.lambda_adv_loss
    g_loss_val = g_loss.item()

    g_optim.zero_grad()
    g_loss.backward()
    g_optim.step()

    w_rec_loss = w_rec_loss.mean()
    w_rec_loss_val = w_rec_loss.item()
    e_optim.zero_grad()
    (w_rec_loss * args.lambda_w_rec_loss).backward()
    e_optim.step()
