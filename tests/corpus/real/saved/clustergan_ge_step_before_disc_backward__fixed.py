# source: https://github.com/zhampel/clusterGAN/issues/2
# expect: clean
import itertools

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.optim import Adam

latent_dim, n_c, img_size = 4, 3, 8


class Generator_CNN(nn.Module):
    def __init__(self, latent_dim, n_c):
        super().__init__()
        self.model = nn.Sequential(nn.Linear(latent_dim + n_c, 64), nn.LeakyReLU(0.2), nn.Linear(64, img_size * img_size), nn.Sigmoid())

    def forward(self, zn, zc):
        return self.model(torch.cat((zn, zc), 1)).view(-1, 1, img_size, img_size)


class Encoder_CNN(nn.Module):
    def __init__(self, latent_dim, n_c):
        super().__init__()
        self.model = nn.Sequential(nn.Flatten(), nn.Linear(img_size * img_size, 64), nn.LeakyReLU(0.2), nn.Linear(64, latent_dim + n_c))

    def forward(self, in_feat):
        z = self.model(in_feat)
        zn, zc_logits = z[:, :latent_dim], z[:, latent_dim:]
        return zn, F.softmax(zc_logits, dim=1), zc_logits


class Discriminator_CNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = nn.Sequential(nn.Flatten(), nn.Linear(img_size * img_size, 64), nn.LeakyReLU(0.2), nn.Linear(64, 1), nn.Sigmoid())

    def forward(self, img):
        return self.model(img)


generator = Generator_CNN(latent_dim, n_c)
encoder = Encoder_CNN(latent_dim, n_c)
discriminator = Discriminator_CNN()
bce_loss = nn.BCELoss()
xe_loss = nn.CrossEntropyLoss()
mse_loss = nn.MSELoss()
optimizer_ge = Adam(itertools.chain(encoder.parameters(), generator.parameters()), lr=1e-4)
opt_disc = Adam(discriminator.parameters(), lr=1e-4)

real_imgs = torch.rand(4, 1, img_size, img_size)
for epoch in range(2):
    generator.train()
    encoder.train()
    generator.zero_grad()
    encoder.zero_grad()
    discriminator.zero_grad()
    optimizer_ge.zero_grad()

    zn = torch.randn(4, latent_dim)
    zc_idx = torch.randint(0, n_c, (4,))
    zc = F.one_hot(zc_idx, n_c).float()
    fake_image = generator(zn, zc)
    fake_op = discriminator(fake_image)
    real_op = discriminator(real_imgs)
    enc_gen_zn, enc_gen_zc, enc_gen_zc_logits = encoder(fake_image)

    valid, fake = torch.ones(4, 1), torch.zeros(4, 1)
    ge_loss = bce_loss(fake_op, valid) + 10 * mse_loss(enc_gen_zn, zn) + 10 * xe_loss(enc_gen_zc_logits, zc_idx)
    ge_loss.backward(retain_graph=True)
    optimizer_ge.step()

    opt_disc.zero_grad()
    real_loss = bce_loss(real_op, valid)
    fake_loss = bce_loss(discriminator(fake_image.detach()), fake)
    disc_loss = (real_loss + fake_loss) / 2
    disc_loss.backward()
    opt_disc.step()
