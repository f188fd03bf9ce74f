# source: https://github.com/schelotto/Wasserstein-AutoEncoders/issues/11
# expect: Mismatch in shape: grad_output[0] has a shape of torch.Size([1]) and output[0] has a shape of torch.Size([])
# buggy-line: 42
# also-line: 32
import torch
import torch.nn as nn

n_z, dim_h, batch_size = 4, 16, 6


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.main = nn.Sequential(nn.Linear(12, dim_h), nn.ReLU(), nn.Linear(dim_h, n_z))

    def forward(self, x):
        return self.main(x)


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.main = nn.Sequential(nn.Linear(n_z, dim_h), nn.ReLU(), nn.Linear(dim_h, 1), nn.Sigmoid())

    def forward(self, z):
        return self.main(z)


encoder, discriminator = Encoder(), Discriminator()
dis_optim = torch.optim.Adam(discriminator.parameters(), lr=5e-4)

one = torch.Tensor([1])
mone = one * -1

for step in range(2):
    images = torch.randn(batch_size, 12)
    discriminator.zero_grad()
    z_fake = torch.randn(batch_size, n_z)
    d_fake = discriminator(z_fake)
    z_real = encoder(images)
    d_real = discriminator(z_real)
    torch.log(d_fake).mean().backward(mone)
    torch.log(1 - d_real).mean().backward(mone)
    dis_optim.step()
