"""MNIST flattened with a stale feature count (CrypTen#487: 2800x28 vs 784)."""
# torch: is invalid for input of size
import torch

batch = torch.randn(16, 1, 28, 28)
pooled = torch.nn.functional.max_pool2d(batch, 2)
flat = batch.view(16, 28 * 28 * 2)  # expect: GL402
