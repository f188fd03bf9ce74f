"""Moving the heads dim with transpose keeps every head's positions together."""
import torch

x = torch.randn(2, 5, 4, 3)
B, L, H, D = x.shape
heads = x.transpose(1, 2)
assert torch.equal(heads.reshape(B, H, L, D), x.permute(0, 2, 1, 3))
