# torch: RuntimeError: only Tensors of floating point and complex dtype can require gradients
# Integer tensors made to require grad: the indices of argmax, a randint sample, and
# integer codes stored into a weight's .data.
import torch
import torch.nn as nn


def pick(scores):
    choice = scores.argmax(dim=1)
    choice.requires_grad = True  # expect: GL204
    return choice


model = nn.Linear(3, 3)
pick(model(torch.randn(4, 3)))
labels = torch.randint(0, 3, (4,)).requires_grad_()  # expect: GL204
model.weight.data = model.weight.data.round().to(torch.int8)  # expect: GL204
