# Masked writes into labels (no grad) inside a loss function.
import torch
import torch.nn.functional as F


def masked_loss(logits, labels):
    labels = labels.clone()
    valid = labels != -100
    labels[~valid] = 0
    loss = F.cross_entropy(logits, labels, reduction="none")
    return (loss * valid).sum() / valid.sum()


logits = torch.randn(5, 3, requires_grad=True)
masked_loss(logits, torch.tensor([0, -100, 2, 1, -100])).backward()
