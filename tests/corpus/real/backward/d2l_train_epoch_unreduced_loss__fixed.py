# source: https://blog.csdn.net/cyj972628089/article/details/122732509
# expect: clean
import torch
from torch import nn


def accuracy(y_hat, y):
    return float((y_hat.argmax(axis=1) == y).sum())


def train_epoch_ch3(net, train_iter, loss, updater):
    if isinstance(net, torch.nn.Module):
        net.train()
    metric = [0.0, 0.0, 0.0]
    for X, y in train_iter:
        y_hat = net(X)
        l = loss(y_hat, y)
        updater.zero_grad()
        l.mean().backward()
        updater.step()
        metric[0] += float(l.sum())
        metric[1] += accuracy(y_hat, y)
        metric[2] += y.numel()
    return metric[0] / metric[2], metric[1] / metric[2]


net = nn.Sequential(nn.Flatten(), nn.Linear(784, 10))
batch_size, lr, num_epochs = 8, 0.1, 1
loss = nn.CrossEntropyLoss(reduction='none')
trainer = torch.optim.SGD(net.parameters(), lr=lr)
train_iter = [(torch.randn(batch_size, 1, 28, 28), torch.randint(0, 10, (batch_size,)))]
for epoch in range(num_epochs):
    train_epoch_ch3(net, train_iter, loss, trainer)
