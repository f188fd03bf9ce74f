"""One colour channel picked out of a batch of images, then flattened with view: the
picked plane skips over the other channels, so it is not one block of memory."""
# torch: view size is not compatible
import torch

frames = torch.randn(4, 3, 8, 8)
green = frames[:, 1]
histogram = torch.histc(green.view(-1), bins=10)  # expect: GL401
