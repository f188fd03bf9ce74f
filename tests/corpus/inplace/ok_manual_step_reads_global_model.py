# The same script with the manual update under no_grad.
import torch
import torch.nn as nn


class Regressor(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 1)

    def forward(self, x):
        return self.fc(x)


model = Regressor()
lr = 0.05


def step(x, y):
    loss = (model(x) - y).pow(2).mean()
    loss.backward()
    with torch.no_grad():
        model.fc.weight -= lr * model.fc.weight.grad
        model.fc.weight.grad.zero_()


for epoch in range(3):
    step(torch.randn(8, 3), torch.randn(8, 1))
