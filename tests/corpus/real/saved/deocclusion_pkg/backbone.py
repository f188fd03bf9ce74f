"""Stands for models/backbone of XiaohangZhan/deocclusion: the wrappers and small stand-ins
for PConvUNet and the edge-connect discriminator."""
import torch
import torch.nn as nn


class FixModule(nn.Module):

    def __init__(self, m):
        super(FixModule, self).__init__()
        self.module = m

    def forward(self, *args, **kwargs):
        return self.module(*args, **kwargs)


class PConvUNet(nn.Module):
    """stand-in: (image, mask) -> (output, mask)"""

    def __init__(self, input_channels=3):
        super(PConvUNet, self).__init__()
        self.enc = nn.Conv2d(input_channels, 8, 3, padding=1)
        self.dec = nn.Conv2d(8, 3, 3, padding=1)

    def forward(self, input, input_mask):
        h = torch.relu(self.enc(input * input_mask[:, :input.shape[1]]))
        return torch.sigmoid(self.dec(h)), input_mask


class InpaintDiscriminator(nn.Module):
    """stand-in for edge-connect's Discriminator: (outputs, features)"""

    def __init__(self, in_channels=3, use_sigmoid=True):
        super(InpaintDiscriminator, self).__init__()
        self.use_sigmoid = use_sigmoid
        self.conv1 = nn.Sequential(
            nn.Conv2d(in_channels, 16, kernel_size=4, stride=2, padding=1),
            nn.LeakyReLU(0.2, inplace=True),
        )
        self.conv2 = nn.Conv2d(16, 1, kernel_size=4, stride=1, padding=1)

    def forward(self, x):
        conv1 = self.conv1(x)
        conv2 = self.conv2(conv1)
        outputs = conv2
        if self.use_sigmoid:
            outputs = torch.sigmoid(conv2)
        return outputs, [conv1, conv2]


class VGG16FeatureExtractor(nn.Module):
    """stand-in: no pretrained weights here"""

    def __init__(self):
        super(VGG16FeatureExtractor, self).__init__()
        self.enc_1 = nn.Conv2d(3, 4, 3, padding=1)
        for param in self.parameters():
            param.requires_grad = False

    def forward(self, image):
        return [self.enc_1(image)]
