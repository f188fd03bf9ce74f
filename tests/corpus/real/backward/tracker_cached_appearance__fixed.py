# source: https://github.com/yinizhizhu/GNMOT/issues/12
# expect: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


class Appearance(nn.Module):
    def __init__(self):
        super().__init__()
        self.cnn = nn.Sequential(nn.Conv2d(3, 4, 3, stride=2), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten())

    def forward(self, crops):
        return self.cnn(crops)


class EdgeUpdater(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 1)

    def forward(self, a, b):
        n, m = a.size(0), b.size(0)
        pairs = torch.cat([a.unsqueeze(1).expand(n, m, 4), b.unsqueeze(0).expand(n, m, 4)], -1)
        return self.fc(pairs).squeeze(-1)


class Tracker:
    def __init__(self, first_frame_crops):
        self.appearance = Appearance()
        self.updater = EdgeUpdater()
        params = list(self.appearance.parameters()) + list(self.updater.parameters())
        self.optimizer = torch.optim.Adam(params, lr=1e-3)
        self.track_crops = first_frame_crops

    def step(self, det_crops, gt_assign):
        # track features recomputed in every step: a fresh graph each time
        track_feats = self.appearance(self.track_crops)
        det_feats = self.appearance(det_crops)
        scores = self.updater(track_feats, det_feats)
        loss = F.cross_entropy(scores, gt_assign)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()


tracker = Tracker(torch.randn(3, 3, 9, 9))
for frame in range(2):
    tracker.step(torch.randn(3, 3, 9, 9), torch.tensor([0, 1, 2]))
