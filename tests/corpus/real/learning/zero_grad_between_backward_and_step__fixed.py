# source: https://github.com/yuval-alaluf/hyperstyle/issues/40
# expect: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


class HyperNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Linear(8, 8)
        self.delta_head = nn.Linear(8, 8)

    def forward(self, x, prev):
        return prev + self.delta_head(torch.tanh(self.encoder(x)))


class Coach:
    def __init__(self, n_iters_per_batch=3):
        self.net = HyperNet()
        self.optimizer = torch.optim.SGD(self.net.parameters(), lr=0.1)
        self.n_iters_per_batch = n_iters_per_batch

    def train_step(self, x, target):
        y_hat = torch.zeros_like(target)
        for _iter in range(self.n_iters_per_batch):
            y_hat = self.net(x, y_hat.detach())
            loss = F.mse_loss(y_hat, target)
            loss.backward()
        self.optimizer.step()
        self.optimizer.zero_grad()


coach = Coach()
before = coach.net.delta_head.weight.detach().clone()
coach.train_step(torch.randn(4, 8), torch.randn(4, 8))
assert not torch.equal(coach.net.delta_head.weight, before)
