# A PGD step that updates the perturbation in place while autograd records.
import torch
import torch.nn as nn

model = nn.Linear(3, 2)
x, y = torch.rand(4, 3), torch.tensor([0, 1, 0, 1])
delta = torch.zeros(4, 3, requires_grad=True)
for _ in range(2):
    loss = nn.functional.cross_entropy(model(x + delta), y)
    loss.backward()
    delta += 0.01 * delta.grad.sign()  # expect: GL101
