"""Video frames (T, H, W, C) turned channels-first by a helper, pooled, and flattened
per frame with view: pooling keeps the channels-last layout."""
# torch: view size is not compatible
import torch
import torch.nn.functional as F

conv = torch.nn.Conv2d(3, 6, 3)


def frame_features(frames):
    maps = F.max_pool2d(conv(frames.permute(0, 3, 1, 2)), 2)
    return maps.view(maps.shape[0], -1)  # expect: GL401


frame_features(torch.rand(5, 12, 12, 3))
