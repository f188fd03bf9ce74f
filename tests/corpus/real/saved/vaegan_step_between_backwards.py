# source: https://github.com/ry85/VAE-GAN/issues/1
# expect: one of the variables needed for gradient computation has been modified by an inplace operation
# buggy-line: 52
# also-line: 55
# mechanism: `optimizer_encoder.step()` updates encoder weights in place between two backward passes through a retained graph that saved them
import torch
import torch.nn as nn


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Sequential(nn.Linear(12, 8), nn.ReLU(), nn.Linear(8, 2 * 4))

    def forward(self, x):
        mu, logvar = self.fc(x).chunk(2, dim=1)
        return mu, logvar


class VaeGan(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = Encoder()
        self.decoder = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 12))
        self.discriminator = nn.Sequential(nn.Linear(12, 8), nn.LeakyReLU(0.2), nn.Linear(8, 1))

    def forward(self, x):
        mu, logvar = self.encoder(x)
        z = mu + torch.randn_like(mu) * torch.exp(0.5 * logvar)
        x_tilde = self.decoder(z)
        return x_tilde, mu, logvar, self.discriminator(x), self.discriminator(x_tilde)


net = VaeGan()
optimizer_encoder = torch.optim.RMSprop(net.encoder.parameters(), lr=3e-4)
optimizer_decoder = torch.optim.RMSprop(net.decoder.parameters(), lr=3e-4)
optimizer_discriminator = torch.optim.RMSprop(net.discriminator.parameters(), lr=3e-4)
bce = nn.BCEWithLogitsLoss()
train_dec, train_dis = True, True

for i in range(2):
    x = torch.randn(4, 12)
    x_tilde, mu, logvar, dis_real, dis_fake = net(x)
    kl = -0.5 * torch.mean(1 + logvar - mu.pow(2) - logvar.exp())
    mse = ((x_tilde - x) ** 2).mean()
    loss_encoder = kl + mse
    loss_decoder = mse - bce(dis_fake, torch.zeros_like(dis_fake))
    loss_discriminator = bce(dis_real, torch.ones_like(dis_real)) + bce(dis_fake, torch.zeros_like(dis_fake))

    net.zero_grad()
    loss_encoder.backward(retain_graph=True)
    optimizer_encoder.step()
    if train_dec and train_dis:
        net.decoder.zero_grad()
        loss_decoder.backward(retain_graph=True)
        optimizer_decoder.step()
        net.discriminator.zero_grad()
        loss_discriminator.backward()
        optimizer_discriminator.step()
