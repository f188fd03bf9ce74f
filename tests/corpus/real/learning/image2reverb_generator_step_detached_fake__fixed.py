# source: https://github.com/nikhilsinghmus/image2reverb/issues/37
# expect: clean
import torch
import torch.nn.functional as F
from torch import nn

# Hyperparameters
G_LR = 2e-4
D_LR = 4e-4
ENC_LR = 1e-5
ADAM_BETA = (0.0, 0.99)
ADAM_EPS = 1e-8
LAMBDA = 100


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.AdaptiveAvgPool2d(4))

    def forward(self, x):
        return [self.net(x)]


class Generator(nn.Module):
    def __init__(self, latent_dimension):
        super().__init__()
        self.net = nn.Sequential(nn.Conv2d(latent_dimension, 8, 3, padding=1), nn.Tanh(), nn.Conv2d(8, 1, 1))

    def forward(self, z):
        return self.net(z)


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Conv2d(1 + 4, 8, 3, padding=1), nn.LeakyReLU(0.2), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, 1))

    def forward(self, x, f):
        return self.net(torch.cat((x, f), 1))


class Image2Reverb(nn.Module):
    def __init__(self, latent_dimension=8, d_threshold=0.2):
        super().__init__()
        self._latent_dimension = latent_dimension
        self._d_threshold = d_threshold
        self.enc = Encoder()
        self.g = Generator(latent_dimension)
        self.d = Discriminator()

    def training_step(self, batch, batch_idx, optimizer_idx):
        spec, label, _ = batch
        spec.requires_grad = True  # For the backward pass, seems necessary for now
        f = self.enc.forward(label)[0]
        z = torch.cat((f, torch.randn((f.shape[0], self._latent_dimension - f.shape[1], f.shape[2], f.shape[3]))), 1)
        fake_spec = self.g(z)
        d_fake = self.d(fake_spec.detach(), f)
        d_real = self.d(spec, f)
        # Train Generator or Encoder
        if optimizer_idx == 0 or optimizer_idx == 1:
            d_fake2 = self.d(fake_spec, f)
            G_loss1 = F.mse_loss(d_fake2, torch.ones(d_fake2.shape))
            G_loss2 = F.l1_loss(fake_spec, spec)
            G_loss = G_loss1 + (LAMBDA * G_loss2)
            return G_loss
        else:  # Train Discriminator
            l_fakeD = F.mse_loss(d_fake, torch.zeros(d_fake.shape))
            l_realD = F.mse_loss(d_real, torch.ones(d_real.shape))
            D_loss = l_realD + l_fakeD
            return D_loss

    def configure_optimizers(self):
        g_optim = torch.optim.Adam(self.g.parameters(), lr=G_LR, betas=ADAM_BETA, eps=ADAM_EPS)
        d_optim = torch.optim.Adam(self.d.parameters(), lr=D_LR, betas=ADAM_BETA, eps=ADAM_EPS)
        enc_optim = torch.optim.Adam(self.enc.parameters(), lr=ENC_LR, betas=ADAM_BETA, eps=ADAM_EPS)
        return [enc_optim, g_optim, d_optim], []


# what Lightning's automatic optimization does with training_step, for each optimizer
torch.manual_seed(0)
model = Image2Reverb()
optimizers, _ = model.configure_optimizers()
batch = (torch.randn(2, 1, 4, 4), torch.randn(2, 3, 8, 8), None)
model.g.zero_grad()
torch.manual_seed(1)
model.training_step(batch, 0, optimizer_idx=1).backward()
with_adversarial = model.g.net[0].weight.grad.clone()
model.g.zero_grad()
torch.manual_seed(0)
model2 = Image2Reverb()
model2.g.zero_grad()
spec, label, _ = batch
f = model2.enc(label)[0]
torch.manual_seed(1)
z = torch.cat((f, torch.randn((2, 4, 4, 4))), 1)
(LAMBDA * F.l1_loss(model2.g(z), spec)).backward()
assert not torch.allclose(with_adversarial, model2.g.net[0].weight.grad)
