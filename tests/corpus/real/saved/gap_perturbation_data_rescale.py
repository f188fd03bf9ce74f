# source: https://github.com/OmidPoursaeed/Generative_Adversarial_Perturbations/issues/4
# expect: silent: the perturbation is rescaled through `.data` after the generator produced it, so autograd never sees the scaling and the generator's gradient is off by that factor
# buggy-line: 18
# mechanism: `delta_im.data[i] = delta_im.data[i] * ratio` on a non-leaf generator output that the graph uses, edited behind autograd's back
import torch
import torch.nn as nn

torch.manual_seed(0)
mag_in = 10.0


def normalize_and_scale(delta_im, mode="train"):
    delta_im = delta_im + 1
    delta_im = delta_im * 0.5
    for i in range(delta_im.size(0)):
        l_inf_channel = delta_im[i].detach().abs().max()
        mag_in_scaled_c = mag_in / (255.0 * 0.5)
        delta_im.data[i] = delta_im.data[i] * (mag_in_scaled_c / l_inf_channel)
    return delta_im


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


def generator_grad(scale_fn):
    netG.zero_grad()
    delta_im = scale_fn(netG(noise))
    recons = torch.clamp(image + delta_im, 0, 1)
    loss = -netClassifier(recons).log_softmax(1)[:, 0].mean()
    loss.backward()
    return netG.model[0].weight.grad.clone()


def scaled_out_of_place(delta_im):
    delta_im = (delta_im + 1) * 0.5
    factors = torch.stack([(mag_in / (255.0 * 0.5)) / delta_im[i].detach().abs().max() for i in range(delta_im.size(0))])
    return delta_im * factors.view(-1, 1, 1, 1)


wrong = generator_grad(normalize_and_scale)
right = generator_grad(scaled_out_of_place)
assert not torch.allclose(wrong, right)
