# source: https://github.com/pytorch/examples/blob/main/mnist/main.py
# expect: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 4, 3, 1)
        self.fc1 = nn.Linear(4 * 13 * 13, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = torch.flatten(x, 1)
        return F.log_softmax(self.fc1(x), dim=1)


def train(model, train_loader, optimizer, epoch, log_interval=1):
    model.train()
    for batch_idx, (data, target) in enumerate(train_loader):
        optimizer.zero_grad()
        output = model(data)
        loss = F.nll_loss(output, target)
        loss.backward()
        optimizer.step()
        if batch_idx % log_interval == 0:
            print("Train Epoch: {} [{}]\tLoss: {:.6f}".format(epoch, batch_idx, loss.item()))


model = Net()
loader = [(torch.randn(2, 1, 28, 28), torch.tensor([3, 7])) for _ in range(2)]
train(model, loader, torch.optim.Adadelta(model.parameters(), lr=1.0), 1)
