"""A view that reorders the same dims: (B, L, H, D) read as (B, H, L, D) mixes heads and positions."""
# torch: view reorders dims
import torch

x = torch.randn(2, 5, 4, 3)
B, L, H, D = x.shape
heads = x.view(B, H, L, D)  # expect: GL403
if not torch.equal(heads, x.transpose(1, 2)):
    raise RuntimeError("view reorders dims: not the transpose")
