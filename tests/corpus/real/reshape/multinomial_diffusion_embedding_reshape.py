# source: https://github.com/ehoogeboom/multinomial_diffusion/issues/1
# expect: silent: the embedded segmentation (B, C, H, W, dim) is permuted to (B, C, W, H, dim) and reshaped to (B, C * dim, H, W): the channels mix the embedding dim with the spatial dims, so a pixel's channels are not its class embedding
# buggy-line: 32
# also-line: 30
# mechanism: reshape(B, C * dim, H, W) of a (B, C, W, H, dim) tensor merges C with dim across W and H
import torch
import torch.nn as nn


class SegmentationUnet(nn.Module):
    def __init__(self, num_classes, dim, num_steps, dim_mults=(1, 2)):
        super().__init__()
        self.num_classes = num_classes
        self.dim = dim
        self.embedding = nn.Embedding(num_classes, dim)
        self.time_mlp = nn.Linear(1, dim)
        self.init_conv = nn.Conv2d(dim, dim, 3, padding=1)
        self.final_conv = nn.Conv2d(dim, num_classes, 1)

    def forward(self, time, x):
        x_shape = x.size()[1:]
        if len(x.size()) == 3:
            x = x.unsqueeze(1)

        B, C, H, W = x.size()
        x = self.embedding(x)

        assert x.shape == (B, C, H, W, self.dim)

        x = x.permute(0, 1, 3, 2, 4)

        x = x.reshape(B, C * self.dim, H, W)
        self.embedded = x
        t = self.time_mlp(time.float().view(-1, 1))
        x = self.init_conv(x) + t[:, :, None, None]
        final = self.final_conv(x).view(B, self.num_classes, *x_shape)
        return final


torch.manual_seed(0)
net = SegmentationUnet(num_classes=3, dim=4, num_steps=10)
x = torch.randint(0, 3, (2, 5, 6))
out = net(torch.tensor([1, 2]), x)
# the effect: the channels at pixel (0, 1) are not the embedding of that pixel's class
assert not torch.equal(net.embedded[0, :, 0, 1], net.embedding.weight[x[0, 0, 1]])
