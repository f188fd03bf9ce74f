"""Pixel coordinates from a meshgrid scaled by depth, stacked, then the spatial dims
swapped and merged with view in a helper: the stacked tensor is a fresh contiguous one."""
# torch: view size is not compatible
import torch


def pixel_rays(depth):
    b, h, w = depth.shape
    ys, xs = torch.meshgrid(torch.arange(h).float(), torch.arange(w).float(), indexing="ij")
    points = torch.stack([xs * depth, ys * depth], dim=1)
    return points.transpose(2, 3).view(b, 2, -1)  # expect: GL401


pixel_rays(torch.rand(2, 4, 5))
