"""backward() on a batch of 3-way outputs inside a helper: not a scalar."""
# torch: grad can be implicitly created only for scalar outputs
import torch
import torch.nn as nn


class Scorer(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 3))

    def forward(self, x):
        return self.net(x)


def per_example_grads(model, batch):
    model.zero_grad()
    scores = model(batch)
    scores.backward()  # expect: GL302
    return [p.grad for p in model.parameters()]


per_example_grads(Scorer(), torch.randn(4, 6))
