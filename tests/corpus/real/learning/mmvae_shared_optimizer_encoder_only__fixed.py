# source: https://github.com/zdebruine/MMVAE/issues/39
# expect: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


class SharedVAE(nn.Module):
    def __init__(self, input_dim=12, latent_dim=4):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(input_dim, 8), nn.ReLU())
        self.fc_mu = nn.Linear(8, latent_dim)
        self.fc_var = nn.Linear(8, latent_dim)
        self.decoder = nn.Sequential(nn.Linear(latent_dim, 8), nn.ReLU(), nn.Linear(8, input_dim))

    def forward(self, x):
        h = self.encoder(x)
        mu, log_var = self.fc_mu(h), self.fc_var(h)
        z = mu + torch.randn_like(mu) * torch.exp(0.5 * log_var)
        return self.decoder(z), mu, log_var


class ExpertModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Linear(12, 12)
        self.decoder = nn.Linear(12, 12)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.shared_vae = SharedVAE()
        self.expert = ExpertModel()

    def forward(self, x):
        return self.shared_vae(self.expert.encoder(x))


class Trainer:
    def __init__(self, model):
        self.model = model
        self.optimizers = {
            'shr_vae': torch.optim.Adam(self.model.shared_vae.parameters(), lr=1e-2),
            'expert': torch.optim.Adam(self.model.expert.parameters(), lr=1e-2),
        }

    def train_step(self, x):
        for opt in self.optimizers.values():
            opt.zero_grad()
        x_hat, mu, log_var = self.model(x)
        recon = F.mse_loss(x_hat, x)
        kl = -0.5 * torch.mean(1 + log_var - mu.pow(2) - log_var.exp())
        loss = recon + kl
        loss.backward()
        for opt in self.optimizers.values():
            opt.step()
        return loss.item()


torch.manual_seed(0)
model = Model()
trainer = Trainer(model)
before = model.shared_vae.decoder[0].weight.detach().clone()
for _ in range(3):
    trainer.train_step(torch.randn(16, 12))
assert not torch.equal(model.shared_vae.decoder[0].weight, before)
