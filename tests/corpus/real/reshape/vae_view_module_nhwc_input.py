# source: https://github.com/davidstutz/disentangling-robustness-generalization/issues/2
# expect: view size is not compatible with input tensor's size and stride
# buggy-line: 16
# also-line: 32
import numpy as np
import torch
import torch.nn as nn


class View(nn.Module):
    def __init__(self, *args):
        super().__init__()
        self.shape = args

    def forward(self, input):
        return input.view(self.shape)


class LearnedVariationalAutoEncoder(nn.Module):
    def __init__(self, latent=4):
        super().__init__()
        self.encoder = nn.Sequential(nn.Conv2d(3, 4, 3, stride=2, padding=1), nn.ReLU(), View(-1, 4 * 4 * 4), nn.Linear(64, 2 * latent))
        self.decoder = nn.Sequential(nn.Linear(latent, 64), View(-1, 4, 4, 4), nn.ConvTranspose2d(4, 3, 4, stride=2, padding=1))

    def forward(self, images):
        mu, logvar = self.encoder(images).chunk(2, dim=1)
        z = mu + torch.randn_like(mu) * (0.5 * logvar).exp()
        return self.decoder(z), mu, logvar


batch = np.random.rand(2, 8, 8, 3).astype(np.float32)  # images stored as N, H, W, C
images = torch.from_numpy(batch).permute(0, 3, 1, 2)
model = LearnedVariationalAutoEncoder()
recon, mu, logvar = model(images)
loss = ((recon - images) ** 2).mean() - 0.5 * (1 + logvar - mu.pow(2) - logvar.exp()).mean()
loss.backward()
