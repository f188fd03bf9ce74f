# source: https://github.com/rosinality/vq-vae-2-pytorch/issues/60
# expect: silent: the ResBlock's first ReLU(inplace=True) rectifies its input in place, so the skip connection `out += input` adds the post-activation values instead of the pre-activation ones
# buggy-line: 14
# also-line: 22
import torch
from torch import nn


class ResBlock(nn.Module):
    def __init__(self, in_channel, channel):
        super().__init__()

        self.conv = nn.Sequential(
            nn.ReLU(inplace=True),
            nn.Conv2d(in_channel, channel, 3, padding=1),
            nn.ReLU(inplace=True),
            nn.Conv2d(channel, in_channel, 1),
        )

    def forward(self, input):
        out = self.conv(input)
        out += input

        return out


class Encoder(nn.Module):
    def __init__(self, in_channel, channel, n_res_block, n_res_channel):
        super().__init__()
        blocks = [nn.Conv2d(in_channel, channel, 3, padding=1)]
        for i in range(n_res_block):
            blocks.append(ResBlock(channel, n_res_channel))
        blocks.append(nn.ReLU(inplace=True))
        self.blocks = nn.Sequential(*blocks)

    def forward(self, input):
        return self.blocks(input)


torch.manual_seed(0)
enc = Encoder(3, 8, n_res_block=1, n_res_channel=4)
x = torch.randn(2, 3, 8, 8)
stem = enc.blocks[0](x)
block = enc.blocks[1]
expected = block.conv[3](block.conv[2](block.conv[1](torch.relu(stem)))) + stem
got = block(stem.clone())
# the effect: the skip connection carries relu(stem), not stem
assert not torch.allclose(got, expected)
assert torch.allclose(got, expected - stem + torch.relu(stem))
