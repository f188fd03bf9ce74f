"""The same pipelines flattened with reshape / flatten / contiguous().view, and
channels-first data viewed directly: all run."""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

conv = nn.Conv2d(3, 6, 3)


def frame_features(frames):
    maps = F.max_pool2d(conv(frames.permute(0, 3, 1, 2)), 2)
    return maps.reshape(maps.shape[0], -1) + maps.flatten(1) + maps.contiguous().view(maps.shape[0], -1)


frame_features(torch.rand(5, 12, 12, 3))
pixels = np.ones((4, 3, 16, 16), dtype=np.float32)
out = conv(torch.from_numpy(pixels))
flat = out.view(out.size(0), -1)
gray = np.zeros((4, 16, 16, 1), dtype=np.float32)
mono = nn.Conv2d(1, 2, 3)(torch.from_numpy(gray).permute(0, 3, 1, 2))
flat_mono = mono.reshape(mono.size(0), -1)
