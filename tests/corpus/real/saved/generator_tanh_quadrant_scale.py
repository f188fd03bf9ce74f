# source: https://github.com/pytorch/pytorch/issues/1321
# expect: one of the variables needed for gradient computation has been modified by an inplace operation
# buggy-line: 25
# mechanism: slice assignment into the output of the generator's final nn.Tanh (Tanh saves its output) to rescale the top-left quadrant
import torch
import torch.nn as nn


class Generator(nn.Module):
    def __init__(self, nz=4, ngf=4):
        super().__init__()
        self.main = nn.Sequential(
            nn.ConvTranspose2d(nz, ngf, 4, 1, 0, bias=False),
            nn.BatchNorm2d(ngf),
            nn.ReLU(True),
            nn.ConvTranspose2d(ngf, 3, 4, 2, 1, bias=False),
            nn.Tanh(),
        )
        self.gain = nn.Linear(nz, 1)

    def forward(self, z):
        x11 = self.main(z)
        xx1 = torch.sigmoid(self.gain(z.flatten(1)))
        w_f, h_f = x11.shape[2], x11.shape[3]
        x11[:, :, 0 : int(w_f / 2), 0 : int(h_f / 2)] = x11[:, :, 0 : int(w_f / 2), 0 : int(h_f / 2)] * xx1[0]
        return x11


netG = Generator()
optimizerG = torch.optim.Adam(netG.parameters(), lr=2e-4, betas=(0.5, 0.999))
noise = torch.randn(2, 4, 1, 1)
target = torch.rand(2, 3, 8, 8) * 2 - 1
optimizerG.zero_grad()
loss = nn.functional.l1_loss(netG(noise), target)
loss.backward()
optimizerG.step()
