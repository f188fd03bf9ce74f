# source: https://github.com/pytorch/audio/pull/1993
# expect: clean
# mechanism: the upsampling conv's weight (a Parameter) is set with fill_ in __init__, outside torch.no_grad()
from typing import List

import torch
from torch import Tensor, nn


class _Stretch2d(nn.Module):
    def __init__(self, time_scale: int, freq_scale: int = 1) -> None:
        super().__init__()
        self.freq_scale = freq_scale
        self.time_scale = time_scale

    def forward(self, specgram: Tensor) -> Tensor:
        return specgram.repeat_interleave(self.freq_scale, -2).repeat_interleave(self.time_scale, -1)


class _UpsampleNetwork(nn.Module):
    def __init__(self, upsample_scales: List[int], n_freq: int = 8) -> None:
        super().__init__()
        total_scale = 1
        for upsample_scale in upsample_scales:
            total_scale *= upsample_scale
        self.total_scale: int = total_scale
        up_layers = []
        for scale in upsample_scales:
            stretch = _Stretch2d(scale, 1)
            conv = nn.Conv2d(in_channels=1, out_channels=1, kernel_size=(1, scale * 2 + 1), padding=(0, scale), bias=False)
            torch.nn.init.constant_(conv.weight, 1.0 / (scale * 2 + 1))
            up_layers.append(stretch)
            up_layers.append(conv)
        self.upsample_layers = nn.Sequential(*up_layers)

    def forward(self, specgram: Tensor) -> Tensor:
        specgram = specgram.unsqueeze(1)
        upsampled = self.upsample_layers(specgram)
        return upsampled.squeeze(1)


upsample = _UpsampleNetwork([2, 2])
out = upsample(torch.randn(1, 8, 5))
out.mean().backward()
