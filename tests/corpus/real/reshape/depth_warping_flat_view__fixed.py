# source: https://github.com/lppllppl920/EndoscopyDepthEstimation-Pytorch/issues/13
# expect: clean
import torch
import torch.nn as nn


class DepthWarpingLayer(nn.Module):
    def __init__(self, epsilon=1e-8):
        super().__init__()
        self.epsilon = epsilon

    def forward(self, depth_maps_1, depth_maps_2, translation, intrinsic):
        return self._depth_warping(depth_maps_1, depth_maps_2, translation, intrinsic)

    def _depth_warping(self, depth_maps_1, depth_maps_2, translation, intrinsic):
        b, _, h, w = depth_maps_1.shape
        v, u = torch.meshgrid(torch.arange(h).float(), torch.arange(w).float(), indexing="ij")
        fx = intrinsic[:, 0].view(b, 1, 1)
        z = depth_maps_1[:, 0] + translation[:, 2].view(b, 1, 1)
        u_2 = (fx * (u * depth_maps_1[:, 0] + translation[:, 0].view(b, 1, 1)) / (z + self.epsilon)).permute(0, 2, 1)
        u_2_flat = u_2.reshape(-1)
        sampled = depth_maps_2.view(-1)[u_2_flat.long().clamp(0, h * w - 1)]
        return sampled.view(b, 1, w, h)


layer = DepthWarpingLayer()
d1 = torch.rand(2, 1, 4, 5, requires_grad=True)
out = layer(d1, torch.rand(2, 1, 4, 5), torch.rand(2, 3), torch.rand(2, 4))
print(out.shape)
