"""A saliency helper picks each sample's class score with `logits[:, labels]`: one
integer index tensor gives a (batch, batch) table, not one score per sample."""
# torch: grad can be implicitly created only for scalar outputs
import torch
import torch.nn as nn

model = nn.Linear(10, 5)


def class_scores(inputs, labels):
    logits = model(inputs)
    return logits[:, labels].sum(1)


images = torch.randn(4, 10, requires_grad=True)
scores = class_scores(images, torch.randint(0, 5, (4,)))
scores.backward()  # expect: GL302
