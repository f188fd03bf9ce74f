"""Detection heads: permute NCHW to NHWC, then merge h and w, still neighbours in memory."""
import torch

n, c, h, w = 2, 6, 4, 5
feature = torch.randn(n, c, h, w)
anchors = feature.permute(0, 2, 3, 1).view(n, -1, c)
