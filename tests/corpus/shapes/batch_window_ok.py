"""Batches cut by hand that are fine: the batch size divides the rows, or the reshape
reads the batch from the tensor."""
import torch
import torch.nn as nn

BATCH_SIZE = 16
model = nn.Linear(12, 3)
features = torch.randn(48, 12)
for i in range(0, features.size(0), BATCH_SIZE):
    scores = model(features[i : i + BATCH_SIZE]).view(BATCH_SIZE, -1)

ragged = torch.randn(50, 12)
for i in range(0, ragged.size(0), BATCH_SIZE):
    xb = ragged[i : i + BATCH_SIZE]
    scores = model(xb).view(xb.size(0), -1)
    flat = model(xb).reshape(-1, 3)
