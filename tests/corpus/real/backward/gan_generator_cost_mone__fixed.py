# source: https://github.com/jalola/improved-wgan-pytorch/issues/11
# expect: clean
import torch
import torch.nn as nn

BATCH_SIZE = 4
GENER_ITERS = 1
END_ITER = 2
DIM = 8

aG = nn.Sequential(nn.Linear(16, 3 * DIM * DIM), nn.Tanh())
aD = nn.Sequential(nn.Linear(3 * DIM * DIM, 32), nn.LeakyReLU(0.2), nn.Linear(32, 1))
optimizer_g = torch.optim.Adam(aG.parameters(), lr=1e-4, betas=(0.0, 0.9))

one = torch.tensor(1.0)
mone = one * -1


def gen_rand_noise():
    return torch.randn(BATCH_SIZE, 16)


def train():
    for iteration in range(END_ITER):
        for p in aD.parameters():
            p.requires_grad_(False)
        for i in range(GENER_ITERS):
            aG.zero_grad()
            noise = gen_rand_noise()
            fake_data = aG(noise)
            gen_cost = aD(fake_data)
            gen_cost = gen_cost.mean()
            gen_cost.backward(mone)
            gen_cost = -gen_cost
        optimizer_g.step()
        for p in aD.parameters():
            p.requires_grad_(True)


train()
