# source: https://github.com/fl16180/small-object-detection/issues/2
# expect: view size is not compatible with input tensor's size and stride
# buggy-line: 21
# also-line: 20
import torch
import torch.nn as nn


class SpatialCooc(nn.Module):
    """co-occurrence of the strongest channel pairs at each position"""

    def __init__(self, channels=6):
        super().__init__()
        self.reduce = nn.Conv2d(channels, channels, 1)
        self.score = nn.Linear(2, 1)

    def forward(self, x):
        x = self.reduce(x)
        top2 = x.topk(2, dim=1)[0]  # (B, 2, H, W)
        channel_pairs = top2.permute(0, 2, 3, 1)
        channel_pairs = channel_pairs.view(-1, 2)
        return self.score(channel_pairs).view(x.size(0), -1).mean(1)


class Detector(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv4 = nn.Conv2d(3, 6, 3, padding=1)
        self.spatialcooc4 = SpatialCooc()

    def forward(self, data):
        return self.spatialcooc4(self.conv4(data))


model = Detector()
scores = model(torch.randn(2, 3, 6, 6))
scores.sum().backward()
