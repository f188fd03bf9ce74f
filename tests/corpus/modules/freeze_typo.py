# torch: AssertionError: the backbone meant to be frozen still received gradients
# Fine-tuning with a misspelled freeze flag: the backbone keeps training.
import torch
import torch.nn as nn

backbone = nn.Linear(8, 8)
head = nn.Linear(8, 2)
for param in backbone.parameters():
    param.require_grad = False  # expect: GL204

head(backbone(torch.randn(4, 8))).sum().backward()
if backbone.weight.grad is not None:
    raise AssertionError("the backbone meant to be frozen still received gradients")
