"""Images stored height-width-channels, permuted to NCHW for a CNN: the convolution keeps
the channels-last layout, so flattening its output with view fails."""
# torch: view size is not compatible
import numpy as np
import torch
import torch.nn as nn


class SmallNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU())
        self.fc = nn.Linear(8 * 16 * 16, 10)

    def forward(self, x):
        x = self.features(x)
        x = x.view(x.size(0), -1)  # expect: GL401
        return self.fc(x)


pixels = np.ones((4, 16, 16, 3), dtype=np.float32)
model = SmallNet()
logits = model(torch.from_numpy(pixels).permute(0, 3, 1, 2))
