# In-place dropout after an in-place LeakyReLU in one nn.Sequential (dreamgonfly/GAN-tutorial#1):
# the in-place LeakyReLU keeps the tensor it edited for its backward (the out-of-place one
# keeps its input).
import torch
import torch.nn as nn

D = nn.Sequential(
    nn.Linear(8, 16),
    nn.LeakyReLU(0.2, inplace=True),
    nn.Dropout(inplace=True),  # expect: GL103
    nn.Linear(16, 1),
    nn.Sigmoid(),
)
D(torch.randn(4, 8)).mean().backward()
