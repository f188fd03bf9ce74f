# source: https://php.bkmy88.com/faq/1575425.html
# expect: one of the variables needed for gradient computation has been modified by an inplace operation
# buggy-line: 43
# also-line: 45
# mechanism: one helper returns both GAN losses from a single forward; `d_optimizer.step()` updates D's weights in place before `g_loss.backward()` walks back through D
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


def loss_nonsaturating(d, g, x_real, *, device):
    z = torch.randn(x_real.shape[0], g.z_dim, device=device)
    gz = g(z)
    dgz = F.sigmoid(d(gz))
    dx = d(x_real)
    real_label = torch.ones(x_real.shape[0], 1, device=device)
    fake_label = torch.zeros(x_real.shape[0], 1, device=device)
    d_loss = F.binary_cross_entropy_with_logits(dx, real_label) + F.binary_cross_entropy(dgz, fake_label)
    g_loss = F.binary_cross_entropy(dgz, real_label)
    return d_loss, g_loss


device = "cpu"
g = Generator()
d = nn.Sequential(nn.Linear(6, 8), nn.LeakyReLU(0.2), nn.Linear(8, 1))
g_optimizer = torch.optim.Adam(g.parameters(), lr=2e-4)
d_optimizer = torch.optim.Adam(d.parameters(), lr=2e-4)
for step in range(2):
    x_real = torch.randn(4, 6)
    d_loss, g_loss = loss_nonsaturating(d, g, x_real, device=device)
    d_optimizer.zero_grad()
    d_loss.backward(retain_graph=True)
    d_optimizer.step()
    g_optimizer.zero_grad()
    g_loss.backward()
    g_optimizer.step()
