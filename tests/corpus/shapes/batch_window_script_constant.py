"""A training script cutting its rows into batches by hand: 50 rows in batches of 16 leave
a last batch of 2, which `view(BATCH_SIZE, -1)` cannot hold."""
# torch: is invalid for input of size
import torch
import torch.nn as nn

BATCH_SIZE = 16
features, labels = torch.randn(50, 12), torch.randint(0, 3, (50,))
model = nn.Linear(12, 3)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for i in range(0, features.size(0), BATCH_SIZE):
    xb, yb = features[i : i + BATCH_SIZE], labels[i : i + BATCH_SIZE]
    scores = model(xb).view(BATCH_SIZE, -1)  # expect: GL403
    loss = nn.functional.cross_entropy(scores, yb)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
