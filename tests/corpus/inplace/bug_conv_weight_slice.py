# Copying pretrained weights into a conv through a slice (PingoLH/FCHarDNet#61).
import torch
import torch.nn as nn

W = torch.randn(8, 3, 3, 3)
cconv = nn.Conv2d(3, 8, 3)
cconv.weight[:, :, :, :] = W[:, :, :, :]  # expect: GL101
