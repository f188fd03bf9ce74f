# source: https://github.com/lucidrains/denoising-diffusion-pytorch/issues/109
# expect: clean
import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader, Dataset


def cycle(dl):
    while True:
        for data in dl:
            yield data


class Unet(nn.Module):
    def __init__(self, dim, channels=3):
        super().__init__()
        self.channels = channels
        self.net = nn.Sequential(nn.Conv2d(channels + 1, dim, 3, padding=1), nn.SiLU(), nn.Conv2d(dim, channels, 3, padding=1))

    def forward(self, x, time):
        t = time.float().view(-1, 1, 1, 1).expand(-1, 1, *x.shape[-2:]) / 1000
        return self.net(torch.cat((x, t), dim=1))


class GaussianDiffusion(nn.Module):
    def __init__(self, model, image_size, timesteps=1000):
        super().__init__()
        self.model = model
        self.image_size = image_size
        self.num_timesteps = timesteps
        betas = torch.linspace(1e-4, 0.02, timesteps)
        alphas_cumprod = torch.cumprod(1.0 - betas, dim=0)
        self.register_buffer("sqrt_alphas_cumprod", alphas_cumprod.sqrt())
        self.register_buffer("sqrt_one_minus_alphas_cumprod", (1.0 - alphas_cumprod).sqrt())

    def forward(self, img):
        b = img.shape[0]
        t = torch.randint(0, self.num_timesteps, (b,)).long()
        noise = torch.randn_like(img)
        x = self.sqrt_alphas_cumprod[t].view(b, 1, 1, 1) * img + self.sqrt_one_minus_alphas_cumprod[t].view(b, 1, 1, 1) * noise
        return F.mse_loss(self.model(x, t), noise)


class TensorDataset(Dataset):
    def __init__(self, data):
        self.data = data

    def __len__(self):
        return len(self.data)

    def __getitem__(self, index):
        return self.data[index]


class Trainer(object):
    def __init__(self, diffusion_model, dataset, train_batch_size=2, train_lr=1e-4, train_num_steps=100):
        self.model = diffusion_model
        self.batch_size = train_batch_size
        self.train_num_steps = train_num_steps
        self.dl = cycle(DataLoader(dataset, batch_size=train_batch_size, shuffle=True))
        self.opt = torch.optim.Adam(diffusion_model.parameters(), lr=train_lr)
        self.step = 0

    def train(self):
        while self.step < self.train_num_steps:
            data = next(self.dl)
            loss = self.model(data)
            loss.backward()
            self.opt.step()
            self.opt.zero_grad()
            self.step += 1


model = Unet(dim=8, channels=3)
diffusion = GaussianDiffusion(model, image_size=8, timesteps=1000)

# my data: 1-channel signals, brought to the network's input shape by a conv
raw = torch.randn(4, 1, 64)
to_input = nn.Conv1d(1, 24, kernel_size=1)
with torch.no_grad():
    signals = to_input(raw).view(4, 3, 8, 64).mean(-1, keepdim=True).expand(-1, -1, -1, 8)
dataset = TensorDataset(signals)

trainer = Trainer(diffusion, dataset, train_batch_size=2, train_lr=1e-4, train_num_steps=3)
trainer.train()
