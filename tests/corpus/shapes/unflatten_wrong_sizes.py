"""unflatten into head sizes that do not multiply to the hidden size."""
# torch: unflatten: Provided sizes
import torch

hidden = torch.randn(2, 5, 12)
heads = hidden.unflatten(2, (5, 3))  # expect: GL402
