# torch: ok
# validate() switches grad mode back on before it returns.
import torch
import torch.nn as nn


class Trainer:
    def __init__(self):
        self.model = nn.Linear(5, 1)
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=0.1)

    def validate(self):
        torch.set_grad_enabled(False)
        score = self.model(torch.randn(3, 5)).mean().item()
        torch.set_grad_enabled(True)
        return score

    def train_epoch(self):
        x, y = torch.randn(4, 5), torch.randn(4, 1)
        loss = (self.model(x) - y).pow(2).mean()
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()

    def fit(self, epochs):
        for epoch in range(epochs):
            print(self.validate())
            self.train_epoch()


Trainer().fit(2)
