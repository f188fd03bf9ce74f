# source: https://github.com/wbw520/scouter/issues/10
# expect: shape '[2, 8, 3, 3]' is invalid for input of size 1024
# buggy-line: 20
# also-line: 14
import torch
import torch.nn as nn


class SlotModel(nn.Module):
    def __init__(self, img_size=32, channel=8):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(3, channel, 3, stride=2, padding=1), nn.ReLU(), nn.Conv2d(channel, channel, 3, stride=2, padding=1))
        self.channel = channel
        self.feature_size = img_size // 10
        self.conv1x1 = nn.Conv2d(channel, 4, 1)
        self.fc = nn.Linear(4, 3)

    def forward(self, x, labels):
        x = self.backbone(x).flatten(2).transpose(1, 2).contiguous()  # tokens (B, HW, C)
        x = self.conv1x1(x.view(x.size(0), self.channel, self.feature_size, self.feature_size))
        logits = self.fc(x.mean(dim=(2, 3)))
        return logits, nn.functional.cross_entropy(logits, labels)


model = SlotModel(img_size=32)
logits, loss = model(torch.randn(2, 3, 32, 32), torch.tensor([0, 2]))
loss.backward()
