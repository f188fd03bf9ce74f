"""Seed 004: an integer gradient of the right shape is accepted by torch."""
import torch

X = torch.tensor([[2.0, 1.0, -3], [-3, 4, 2]], requires_grad=True)
W = torch.tensor([[3.0, 2.0, 1.0, -1], [2, 1, 3, 2], [3, 2, 1, -2]], requires_grad=True)
Y = torch.exp(torch.matmul(X, W))
dL_over_dy = torch.tensor([[2, 3, -3, 9], [-8, 1, 4, 6]])
Y.backward(dL_over_dy)
