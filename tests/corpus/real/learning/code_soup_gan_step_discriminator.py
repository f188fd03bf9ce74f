# source: https://github.com/Adversarial-Deep-Learning/code-soup/issues/69
# expect: silent: the discriminator's gradients are never cleared: each of its steps applies the sum of all earlier ones
# buggy-line: 49
# also-line: 61
# mechanism: a GAN class steps two optimizers every call; the generator's is cleared, the discriminator's never is
import torch
import torch.nn as nn


class Generator(nn.Module):
    def __init__(self, latent_dims=4, image_size=8):
        super().__init__()
        self.main = nn.Sequential(nn.Linear(latent_dims, 16), nn.ReLU(), nn.Linear(16, image_size), nn.Tanh())

    def forward(self, z):
        return self.main(z)


class Discriminator(nn.Module):
    def __init__(self, image_size=8):
        super().__init__()
        self.main = nn.Sequential(nn.Linear(image_size, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1), nn.Sigmoid())

    def forward(self, x):
        return self.main(x)


class GAN:
    def __init__(self, latent_dims=4, image_size=8, lr=2e-4):
        self.latent_dims = latent_dims
        self.generator = Generator(latent_dims, image_size)
        self.discriminator = Discriminator(image_size)
        self.criterion = nn.BCELoss()
        self.optimizerD = torch.optim.Adam(self.discriminator.parameters(), lr=lr)
        self.optimizerG = torch.optim.Adam(self.generator.parameters(), lr=lr)
        self.leftover = []

    def step(self, real):
        label = torch.ones(real.size(0), 1)
        self.leftover.append(self.discriminator.main[0].weight.grad)
        output = self.discriminator(real)
        errD_real = self.criterion(output, label)
        errD_real.backward()
        noise = torch.randn(real.size(0), self.latent_dims)
        fake = self.generator(noise)
        output = self.discriminator(fake.detach())
        errD_fake = self.criterion(output, torch.zeros(real.size(0), 1))
        errD_fake.backward()
        self.optimizerD.step()

        self.generator.zero_grad()
        output = self.discriminator(fake)
        errG = self.criterion(output, label)
        errG.backward()
        self.optimizerG.step()
        return errD_real + errD_fake, errG


gan = GAN()
for epoch in range(2):
    gan.step(torch.rand(4, 8))
assert gan.leftover[1] is not None and gan.leftover[1].abs().sum() > 0  # stale gradients
