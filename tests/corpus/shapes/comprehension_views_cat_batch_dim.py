"""Views of one sample encoded one by one and concatenated on the batch dim, fed to a
head sized for the features side by side (a comprehension over `*views`)."""
# torch: mat1 and mat2 shapes cannot be multiplied
import torch
import torch.nn as nn

encoder = nn.Linear(10, 3)
head = nn.Linear(4 * 3, 2)


def fuse(*views):
    feats = [encoder(v) for v in views]
    return head(torch.cat(feats))  # expect: GL404


fuse(*[torch.randn(5, 10) for _ in range(4)])
