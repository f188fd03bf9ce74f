# torch: raises element 0 of tensors does not require grad and does not have a grad_fn
# validate() switches grad mode off globally and never back on: the next epoch's
# training runs without autograd.
import torch
import torch.nn as nn


class Trainer:
    def __init__(self):
        self.model = nn.Linear(5, 1)
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=0.1)

    def validate(self):
        torch.set_grad_enabled(False)
        return self.model(torch.randn(3, 5)).mean().item()

    def train_epoch(self):
        x, y = torch.randn(4, 5), torch.randn(4, 1)
        loss = (self.model(x) - y).pow(2).mean()
        self.optimizer.zero_grad()
        loss.backward()  # expect: GL202
        self.optimizer.step()

    def fit(self, epochs):
        for epoch in range(epochs):
            print(self.validate())
            self.train_epoch()


Trainer().fit(2)
