# source: https://github.com/Hsintien-Ng/idinvert_pytorch-reproduced/issues/1
# expect: clean
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
E = nn.Sequential(nn.Linear(16, 8))
G = nn.Sequential(nn.Linear(8, 16))
D = nn.Sequential(nn.Linear(16, 1))
for p in G.parameters():
    p.requires_grad_(False)  # the generator is pretrained and fixed
optimizer_E = torch.optim.Adam(E.parameters(), lr=1e-4, betas=(0.9, 0.99))
optimizer_D = torch.optim.Adam(D.parameters(), lr=1e-4, betas=(0.9, 0.99))
leftover = []  # what D's gradient holds when its backward starts


def training_loop_encoder(iterations):
    for it in range(iterations):
        x_real = torch.randn(4, 16)
        w = E(x_real)
        x_rec = G(w)

        # ===============================
        #         Train Discriminator
        # ===============================
        optimizer_D.zero_grad()
        x_real.requires_grad_()
        real_scores = D(x_real)
        fake_scores = D(x_rec.detach())
        loss_fake = F.softplus(fake_scores).mean()
        loss_real = F.softplus(-real_scores).mean()
        real_grads = torch.autograd.grad(real_scores.sum(), x_real, create_graph=True)[0]
        r1_penalty = real_grads.pow(2).sum(1).mean()
        loss_D = loss_real + loss_fake + r1_penalty * 5.0
        leftover.append(D[0].weight.grad)
        loss_D.backward()
        optimizer_D.step()

        # ===============================
        #         Train Encoder
        # ===============================
        optimizer_E.zero_grad()
        loss_pix = F.mse_loss(x_rec, x_real.detach())
        loss_adv = F.softplus(-D(x_rec)).mean()
        loss_E = loss_pix + 0.08 * loss_adv
        loss_E.backward()
        optimizer_E.step()


training_loop_encoder(2)
assert leftover[1] is None
