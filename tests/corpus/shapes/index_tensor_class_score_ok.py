"""Each sample's class score picked with gather or with an index per dim, summed: a
scalar."""
import torch
import torch.nn as nn

model = nn.Linear(10, 5)
images = torch.randn(4, 10, requires_grad=True)
labels = torch.randint(0, 5, (4,))
logits = model(images)
picked = logits.gather(1, labels[:, None]).sum() + logits[torch.arange(4), labels].sum()
picked.backward()
