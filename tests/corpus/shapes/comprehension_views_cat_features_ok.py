"""The same fusion concatenating the features (dim 1): the head fits."""
import torch
import torch.nn as nn

encoder = nn.Linear(10, 3)
head = nn.Linear(4 * 3, 2)


def fuse(*views):
    feats = [encoder(v) for v in views]
    return head(torch.cat(feats, 1))


fuse(*[torch.randn(5, 10) for _ in range(4)])
