"""A helper that swaps batch and channel with view instead of permute (concrete sizes)."""
# torch: view reorders dims
import torch


def to_channel_first(features):
    return features.view(4, 64, 3)  # expect: GL403


batch = torch.randn(64, 4, 3)
moved = to_channel_first(batch)
if not torch.equal(moved, batch.permute(1, 0, 2)):
    raise RuntimeError("view reorders dims: not the permute")
