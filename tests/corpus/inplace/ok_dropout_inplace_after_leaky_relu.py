# In-place dropout after an out-of-place LeakyReLU: its backward needs its input (the
# Linear's output), not the tensor the dropout edits.
import torch
import torch.nn as nn

D = nn.Sequential(
    nn.Linear(8, 16),
    nn.LeakyReLU(0.2),
    nn.Dropout(inplace=True),
    nn.Linear(16, 1),
    nn.Sigmoid(),
)
D(torch.randn(4, 8)).mean().backward()
