# source: https://php.bkmy88.com/faq/1575425.html
# expect: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


class Generator(nn.Module):
    def __init__(self, z_dim=4):
        super().__init__()
        self.z_dim = z_dim
        self.net = nn.Sequential(nn.Linear(z_dim, 8), nn.ReLU(), nn.Linear(8, 6))

    def forward(self, z):
        return self.net(z)


def d_loss_fn(d, gz, x_real, *, device):
    dgz = F.sigmoid(d(gz.detach()))
    dx = d(x_real)
    real_label = torch.ones(x_real.shape[0], 1, device=device)
    fake_label = torch.zeros(x_real.shape[0], 1, device=device)
    return F.binary_cross_entropy_with_logits(dx, real_label) + F.binary_cross_entropy(dgz, fake_label)


def g_loss_fn(d, gz, *, device):
    dgz = F.sigmoid(d(gz))
    return F.binary_cross_entropy(dgz, torch.ones(gz.shape[0], 1, device=device))


device = "cpu"
g = Generator()
d = nn.Sequential(nn.Linear(6, 8), nn.LeakyReLU(0.2), nn.Linear(8, 1))
g_optimizer = torch.optim.Adam(g.parameters(), lr=2e-4)
d_optimizer = torch.optim.Adam(d.parameters(), lr=2e-4)
for step in range(2):
    x_real = torch.randn(4, 6)
    gz = g(torch.randn(x_real.shape[0], g.z_dim, device=device))
    d_optimizer.zero_grad()
    d_loss_fn(d, gz, x_real, device=device).backward()
    d_optimizer.step()
    g_optimizer.zero_grad()
    g_loss_fn(d, gz, device=device).backward()
    g_optimizer.step()
