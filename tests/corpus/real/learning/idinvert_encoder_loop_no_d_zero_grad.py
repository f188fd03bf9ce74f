# source: https://github.com/Hsintien-Ng/idinvert_pytorch-reproduced/issues/1
# expect: silent: optimizer_D.zero_grad() is missing: the discriminator's step also applies the encoder loss's gradients and every earlier iteration's
# buggy-line: 60
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F


class Encoder(nn.Module):
    def __init__(self, w_dim=8):
        super().__init__()
        self.net = nn.Sequential(nn.Flatten(), nn.Linear(3 * 8 * 8, w_dim))

    def forward(self, x):
        return self.net(x)


class Generator(nn.Module):
    def __init__(self, w_dim=8):
        super().__init__()
        self.net = nn.Linear(w_dim, 3 * 8 * 8)

    def forward(self, w):
        return torch.tanh(self.net(w)).view(-1, 3, 8, 8)


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Flatten(), nn.Linear(3 * 8 * 8, 1))

    def forward(self, x):
        return self.net(x)


def training_loop(E, G, D, data, config):
    optimizer_E = torch.optim.Adam(E.parameters(), lr=config["lr_E"])
    optimizer_D = torch.optim.Adam(D.parameters(), lr=config["lr_D"])
    G.eval()
    for param in G.parameters():
        param.requires_grad = False
    for it, x in enumerate(data):
        # train the encoder
        w = E(x)
        x_rec = G(w)
        loss_pix = F.mse_loss(x_rec, x)
        loss_adv = F.softplus(-D(x_rec)).mean()
        loss_E = loss_pix + config["adv_weight"] * loss_adv
        optimizer_E.zero_grad()
        loss_E.backward()
        optimizer_E.step()

        # train the discriminator
        x_fake = G(E(x)).detach()
        loss_real = F.softplus(-D(x)).mean()
        loss_fake = F.softplus(D(x_fake)).mean()
        loss_D = loss_real + loss_fake
        loss_D.backward()
        optimizer_D.step()


torch.manual_seed(0)
config = {"lr_E": 1e-3, "lr_D": 1e-3, "adv_weight": 0.1}
E, G, D = Encoder(), Generator(), Discriminator()
start = [copy.deepcopy(m.state_dict()) for m in (E, G, D)]
data = [torch.rand(2, 3, 8, 8) * 2 - 1 for _ in range(3)]
training_loop(E, G, D, data, config)

# the effect: the discriminator's first step already differs from one that cleared its gradients
E2, G2, D2 = Encoder(), Generator(), Discriminator()
for module, state in zip((E2, G2, D2), start):
    module.load_state_dict(state)
optimizer_D2 = torch.optim.Adam(D2.parameters(), lr=config["lr_D"])
x = data[0]
with torch.no_grad():
    x_fake = G2(E2(x))
optimizer_D2.zero_grad()
(F.softplus(-D2(x)).mean() + F.softplus(D2(x_fake)).mean()).backward()
d_grad_clean = D2.net[1].weight.grad.clone()
E3, G3, D3 = Encoder(), Generator(), Discriminator()
for module, state in zip((E3, G3, D3), start):
    module.load_state_dict(state)
training_loop(E3, G3, D3, data[:1], {**config, "lr_D": 0.0})
assert not torch.allclose(D3.net[1].weight.grad, d_grad_clean)
