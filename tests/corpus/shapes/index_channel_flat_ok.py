"""Picked planes that can be flattened: the last index (the rest keeps its spacing), the
first one, reshape, and meshgrid points merged in their own order."""
import torch

frames = torch.randn(4, 3, 8, 8)
columns = frames[..., 0].view(-1)
first = frames[0].view(-1)
plane = frames[:, 1].reshape(-1)
ys, xs = torch.meshgrid(torch.arange(4).float(), torch.arange(5).float(), indexing="ij")
points = torch.stack([xs * frames[:, 0, :4, :5], ys * frames[:, 0, :4, :5]], dim=1)
rays = points.view(4, 2, -1)
