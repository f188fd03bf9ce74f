# source: https://github.com/Zeleni9/pytorch-wgan/issues/5
# expect: clean
import torch
import torch.nn as nn
from torch import autograd


class Critic(nn.Module):
    def __init__(self, channels=1):
        super().__init__()
        self.main_module = nn.Sequential(nn.Conv2d(channels, 4, 4, 2, 1), nn.LeakyReLU(0.2))
        self.output = nn.Conv2d(4, 1, 4, 1, 0)

    def forward(self, x):
        return self.output(self.main_module(x))


class WGAN_GP:
    def __init__(self, batch_size=3):
        self.D = Critic()
        self.G = nn.Sequential(nn.Linear(5, 64), nn.Tanh(), nn.Unflatten(1, (1, 8, 8)))
        self.d_optimizer = torch.optim.Adam(self.D.parameters(), lr=1e-4, betas=(0.5, 0.999))
        self.batch_size = batch_size
        self.lambda_term = 10

    def calculate_gradient_penalty(self, real_images, fake_images):
        eta = torch.rand(self.batch_size, 1, 1, 1)
        interpolated = (eta * real_images + (1 - eta) * fake_images).requires_grad_(True)
        prob_interpolated = self.D(interpolated)
        gradients = autograd.grad(
            outputs=prob_interpolated,
            inputs=interpolated,
            grad_outputs=torch.ones(prob_interpolated.size()),
            create_graph=True,
            retain_graph=True,
        )[0]
        return ((gradients.view(self.batch_size, -1).norm(2, dim=1) - 1) ** 2).mean() * self.lambda_term

    def train(self, critic_iter=2):
        one = torch.tensor(1, dtype=torch.float)
        mone = one * -1
        for d_iter in range(critic_iter):
            self.D.zero_grad()
            images = torch.randn(self.batch_size, 1, 8, 8)
            d_loss_real = self.D(images).mean()
            d_loss_real.backward(mone)
            z = torch.randn(self.batch_size, 5)
            fake_images = self.G(z)
            d_loss_fake = self.D(fake_images.detach()).mean()
            d_loss_fake.backward(one)
            gradient_penalty = self.calculate_gradient_penalty(images, fake_images.detach())
            gradient_penalty.backward()
            self.d_optimizer.step()


WGAN_GP().train()
