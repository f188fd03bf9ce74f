# source: https://github.com/caogang/wgan-gp/blob/master/gan_mnist.py
# expect: clean
import torch
import torch.autograd as autograd
import torch.nn as nn

BATCH_SIZE, LAMBDA = 4, 10
netD = nn.Sequential(nn.Linear(16, 8), nn.ReLU(), nn.Linear(8, 1))


def calc_gradient_penalty(netD, real_data, fake_data):
    alpha = torch.rand(BATCH_SIZE, 1).expand(real_data.size())
    interpolates = (alpha * real_data + (1 - alpha) * fake_data).requires_grad_(True)
    disc_interpolates = netD(interpolates)
    gradients = autograd.grad(
        outputs=disc_interpolates,
        inputs=interpolates,
        grad_outputs=torch.ones(disc_interpolates.size()),
        create_graph=True,
        retain_graph=True,
        only_inputs=True,
    )[0]
    return ((gradients.norm(2, dim=1) - 1) ** 2).mean() * LAMBDA


real, fake = torch.randn(BATCH_SIZE, 16), torch.randn(BATCH_SIZE, 16)
D_cost = netD(fake).mean() - netD(real).mean() + calc_gradient_penalty(netD, real, fake)
D_cost.backward()
