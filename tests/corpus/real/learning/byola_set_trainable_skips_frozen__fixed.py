# source: https://github.com/nttcslab/byol-a/issues/7
# expect: clean
import logging

import torch
from torch import nn
import torch.nn.functional as F


class NetworkCommonMixIn():
    """Common mixin for network definition."""

    def set_trainable(self, trainable=False):
        for p in self.parameters():
            p.requires_grad = trainable


class AudioNTT2020Task6(nn.Module, NetworkCommonMixIn):
    """DCASE2020 Task6 NTT Solution Audio Embedding Network."""

    def __init__(self, n_mels, d):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 8, 3, stride=1, padding=1),
            nn.BatchNorm2d(8),
            nn.ReLU(),
            nn.MaxPool2d(2, stride=2),

            nn.Conv2d(8, 8, 3, stride=1, padding=1),
            nn.BatchNorm2d(8),
            nn.ReLU(),
            nn.MaxPool2d(2, stride=2),

            nn.Conv2d(8, 8, 3, stride=1, padding=1),
            nn.BatchNorm2d(8),
            nn.ReLU(),
            nn.MaxPool2d(2, stride=2),

        )
        self.fc = nn.Sequential(
            nn.Linear(8 * (n_mels // (2**3)), d),
            nn.ReLU(),
            nn.Dropout(p=0.3),
            nn.Linear(d, d),
            nn.ReLU(),
        )
        self.d = d

    def forward(self, x):
        x = self.features(x)       # (batch, ch, mel, time)
        x = x.permute(0, 3, 2, 1)  # (batch, time, mel, ch)
        B, T, D, C = x.shape
        x = x.reshape((B, T, C * D))  # (batch, time, mel*ch)
        x = self.fc(x)
        return x


class AudioNTT2020(AudioNTT2020Task6):
    """BYOL-A General Purpose Representation Network.
    This is an extension of the DCASE 2020 Task 6 NTT Solution Audio Embedding Network.
    """

    def __init__(self, n_mels=64, d=512):
        super().__init__(n_mels=n_mels, d=d)

    def forward(self, x):
        x = super().forward(x)
        (x1, _) = torch.max(x, dim=1)
        x2 = torch.mean(x, dim=1)
        x = x1 + x2
        assert x.shape[1] == self.d and x.ndim == 2
        return x


class TaskNetwork(nn.Module):
    """the downstream classifier: the pretrained encoder and a linear head"""

    def __init__(self, encoder, d, n_classes):
        super().__init__()
        self.encoder = encoder
        self.head = nn.Linear(d, n_classes)

    def forward(self, x):
        return self.head(self.encoder(x))


logging.basicConfig(level=logging.INFO)
encoder = AudioNTT2020(n_mels=32, d=16)
net = TaskNetwork(encoder, 16, 4)
lms, labels = torch.randn(4, 1, 32, 48), torch.randint(0, 4, (4,))

# stage 1: linear evaluation on the frozen encoder
encoder.set_trainable(False)
optimizer = torch.optim.Adam(filter(lambda p: p.requires_grad, net.parameters()), lr=1e-3)
for step in range(2):
    loss = F.cross_entropy(net(lms), labels)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()

# stage 2: fine-tune the whole network
encoder.set_trainable(True)
optimizer = torch.optim.Adam(filter(lambda p: p.requires_grad, net.parameters()), lr=1e-4)
for step in range(2):
    loss = F.cross_entropy(net(lms), labels)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
logging.info(f'trainable parameters: {sum(p.numel() for p in net.parameters() if p.requires_grad)}')
assert all(p.requires_grad for p in encoder.parameters())
