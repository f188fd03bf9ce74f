# source: https://github.com/1zb/pytorch-image-comp-rnn/issues/4
# expect: clean
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import Function


class Sign(Function):
    """stochastic binarization in training, deterministic in evaluation"""

    @staticmethod
    def forward(ctx, input, is_training=True):
        if is_training:
            prob = input.new(input.size()).uniform_()
            x = input.clone()
            x[(1 - input) / 2 <= prob] = 1
            x[(1 - input) / 2 > prob] = -1
            return x
        return input.sign()

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output, None


class Binarizer(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(8, 4, 1, bias=False)

    def forward(self, input):
        return Sign.apply(torch.tanh(self.conv(input)), self.training)


encoder = nn.Conv2d(3, 8, 3, stride=2, padding=1)
binarizer, decoder = Binarizer(), nn.ConvTranspose2d(4, 3, 2, stride=2)
params = list(encoder.parameters()) + list(binarizer.parameters()) + list(decoder.parameters())
solver = torch.optim.Adam(params, lr=5e-4)
patches = torch.rand(2, 3, 8, 8)
codes = binarizer(encoder(patches))
loss = F.l1_loss(decoder(codes), patches)
solver.zero_grad()
loss.backward()
solver.step()
