# source: https://github.com/cybertronai/autograd-hacks/issues/8
# expect: clean
import torch
import torch.nn as nn


class ValueHead(nn.Module):
    def __init__(self, d_in=6, d_hidden=8, n_out=3):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(d_in, d_hidden), nn.Tanh())
        self.head = nn.Linear(d_hidden, n_out)

    def forward(self, x):
        return self.head(self.body(x))


def compute_grads(model, batch):
    model.zero_grad()
    output = model(batch)  # (N, 3): a vector per example
    # only the first output unit is needed: reduce it to a scalar
    output[:, 0].sum().backward()
    return [p.grad.clone() for p in model.parameters()]


model = ValueHead()
batch = torch.randn(4, 6)
grads = compute_grads(model, batch)
print([g.shape for g in grads])
