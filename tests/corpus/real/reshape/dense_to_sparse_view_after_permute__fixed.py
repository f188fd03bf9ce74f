# source: https://github.com/facebookresearch/SparseConvNet/issues/220
# expect: clean
import torch
import torch.nn as nn


class DenseToSparse(nn.Module):
    """(B, C, H, W) dense batch -> (active sites, C) features and their coordinates"""

    def __init__(self, dimension=2):
        super().__init__()
        self.dimension = dimension

    def forward(self, input):
        aa = input.permute(*([0] + list(range(2, 2 + self.dimension)) + [1]))
        mask = aa.abs().sum(-1) > 0
        coords = mask.nonzero()
        aa = aa.reshape(-1, input.size(1))
        return coords, aa[mask.view(-1)]


images = torch.randn(2, 3, 5, 5).contiguous()
images[:, :, :2] = 0
coords, feats = DenseToSparse(2)(images)
print(coords.shape, feats.shape)
