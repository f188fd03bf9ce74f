# source: https://github.com/easton-cau/SOTR/issues/19
# expect: modified by an inplace operation
# buggy-line: 68
# mechanism: level 0's tower (built in the loop's `if i == 0:` arm with add_module) ends in a ReLU; `feature_add_all_level += ...` edits that ReLU's saved output
from types import SimpleNamespace

import torch
import torch.nn as nn


class MaskBranch(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.mask_in_channels = cfg.MODEL.SOTR.MASK_IN_CHANNELS
        self.mask_channels = cfg.MODEL.SOTR.MASK_CHANNELS
        self.num_masks = cfg.MODEL.SOTR.NUM_MASKS
        self.num_levels = cfg.MODEL.SOTR.NUM_LEVELS
        norm = cfg.MODEL.SOTR.NORM

        self.convs_all_levels = nn.ModuleList()
        for i in range(self.num_levels):
            convs_per_level = nn.Sequential()
            if i == 0:
                conv_tower = list()
                conv_tower.append(
                    nn.Conv2d(self.mask_in_channels, self.mask_channels, kernel_size=3, stride=1, padding=1, bias=norm is None)
                )
                if norm == "GN":
                    conv_tower.append(nn.GroupNorm(4, self.mask_channels))
                conv_tower.append(nn.ReLU(inplace=False))
                convs_per_level.add_module("conv" + str(i), nn.Sequential(*conv_tower))
                self.convs_all_levels.append(convs_per_level)
                continue

            for j in range(i):
                if j == 0:
                    chn = self.mask_in_channels + 2 if i == self.num_levels - 1 else self.mask_in_channels
                else:
                    chn = self.mask_channels
                conv_tower = list()
                conv_tower.append(nn.Conv2d(chn, self.mask_channels, kernel_size=3, stride=1, padding=1, bias=norm is None))
                if norm == "GN":
                    conv_tower.append(nn.GroupNorm(4, self.mask_channels))
                conv_tower.append(nn.ReLU(inplace=False))
                convs_per_level.add_module("conv" + str(j), nn.Sequential(*conv_tower))
                upsample_tower = nn.Upsample(scale_factor=2, mode="bilinear", align_corners=False)
                convs_per_level.add_module("upsample" + str(j), upsample_tower)
            self.convs_all_levels.append(convs_per_level)

        self.conv_pred = nn.Sequential(
            nn.Conv2d(self.mask_channels, self.num_masks, kernel_size=1, stride=1, padding=0, bias=norm is None),
            nn.GroupNorm(4, self.num_masks),
            nn.ReLU(inplace=True),
        )

    def forward(self, features):
        feature_add_all_level = self.convs_all_levels[0](features[0])
        for i in range(1, self.num_levels):
            mask_feat = features[i]
            if i == self.num_levels - 1:
                x_range = torch.linspace(-1, 1, mask_feat.shape[-1], device=mask_feat.device)
                y_range = torch.linspace(-1, 1, mask_feat.shape[-2], device=mask_feat.device)
                y, x = torch.meshgrid(y_range, x_range, indexing="ij")
                y = y.expand([mask_feat.shape[0], 1, -1, -1])
                x = x.expand([mask_feat.shape[0], 1, -1, -1])
                coord_feat = torch.cat([x, y], 1)
                mask_feat = torch.cat([mask_feat, coord_feat], 1)
            feature_add_all_level += self.convs_all_levels[i](mask_feat)
        mask_pred = self.conv_pred(feature_add_all_level)
        return mask_pred


sotr = SimpleNamespace(MASK_IN_CHANNELS=8, MASK_CHANNELS=8, NUM_MASKS=8, NUM_LEVELS=3, NORM="GN")
cfg = SimpleNamespace(MODEL=SimpleNamespace(SOTR=sotr))
mask_branch = MaskBranch(cfg)
features = [torch.randn(2, 8, 16, 16), torch.randn(2, 8, 8, 8), torch.randn(2, 8, 4, 4)]
mask_pred = mask_branch(features)
loss = mask_pred.mean()
loss.backward()
