"""A training script cuts 100 rows into batches of `batch_size = 32` (a module constant
spelled in lower case): the last batch has 4 rows, and the view that hard-codes 32 as
its leading dim folds that batch's features into 32 rows the head rejects."""
# torch: mat1 and mat2 shapes cannot be multiplied
import torch
import torch.nn as nn

batch_size = 32
model = nn.Sequential(nn.Conv2d(1, 4, 3), nn.ReLU())
head = nn.Linear(4 * 26 * 26, 10)
data = torch.randn(100, 1, 28, 28)
for i in range(0, 100, batch_size):
    x = data[i : i + batch_size]
    feats = model(x).view(batch_size, -1)  # expect: GL403
    head(feats)
