# source: https://github.com/OmidPoursaeed/Generative_Adversarial_Perturbations/issues/4
# expect: clean
import torch
import torch.nn as nn

torch.manual_seed(0)
mag_in = 10.0


def normalize_and_scale(delta_im, mode="train"):
    delta_im = delta_im + 1
    delta_im = delta_im * 0.5
    factors = []
    for i in range(delta_im.size(0)):
        l_inf_channel = delta_im[i].detach().abs().max()
        mag_in_scaled_c = mag_in / (255.0 * 0.5)
        factors.append(mag_in_scaled_c / l_inf_channel)
    return delta_im * torch.stack(factors).view(-1, 1, 1, 1)


class ResnetGenerator(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = nn.Sequential(nn.Conv2d(3, 3, 3, padding=1), nn.Tanh())

    def forward(self, x):
        return self.model(x)


netG = ResnetGenerator()
netClassifier = nn.Sequential(nn.Flatten(), nn.Linear(3 * 4 * 4, 5))
image = torch.rand(2, 3, 4, 4)
noise = torch.rand(2, 3, 4, 4)

netG.zero_grad()
delta_im = normalize_and_scale(netG(noise))
recons = torch.clamp(image + delta_im, 0, 1)
loss = -netClassifier(recons).log_softmax(1)[:, 0].mean()
loss.backward()
assert netG.model[0].weight.grad is not None
