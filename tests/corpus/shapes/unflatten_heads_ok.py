"""unflatten the hidden size into (heads, head_dim), with -1."""
import torch

hidden = torch.randn(2, 5, 12)
heads = hidden.unflatten(2, (4, -1))
merged = heads.flatten(2)
