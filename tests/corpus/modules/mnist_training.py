# torch: ok
# A training loop in the style of pytorch/examples mnist, on random data.
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 4, 3, 1)
        self.conv2 = nn.Conv2d(4, 8, 3, 1)
        self.dropout = nn.Dropout(0.25)
        self.fc1 = nn.Linear(8 * 12 * 12, 16)
        self.fc2 = nn.Linear(16, 10)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = F.relu(self.conv2(x))
        x = F.max_pool2d(x, 2)
        x = self.dropout(x)
        x = torch.flatten(x, 1)
        x = F.relu(self.fc1(x))
        return F.log_softmax(self.fc2(x), dim=1)


def train(model, data, optimizer):
    model.train()
    for images, target in data:
        optimizer.zero_grad()
        loss = F.nll_loss(model(images), target)
        loss.backward()
        optimizer.step()
    return loss.item()


model = Net()
optimizer = optim.Adadelta(model.parameters(), lr=1.0)
batches = [(torch.randn(2, 1, 28, 28), torch.randint(0, 10, (2,))) for _ in range(2)]
before = model.fc2.weight.detach().clone()
train(model, batches, optimizer)
assert not torch.equal(before, model.fc2.weight)
