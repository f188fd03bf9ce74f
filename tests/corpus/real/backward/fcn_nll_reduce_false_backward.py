# source: https://github.com/pytorch/pytorch/issues/6166
# expect: grad can be implicitly created only for scalar outputs
# buggy-line: 28
# also-line: 22
# mechanism: NLLLoss(reduce=False) on a (batch, classes, H, W) output gives a (batch, H, W) loss; backward() is called on it bare
import torch
import torch.nn as nn


class FCN(nn.Module):
    def __init__(self, num_classes=4):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU())
        self.classifier = nn.Conv2d(8, num_classes, 1)

    def forward(self, x):
        return self.classifier(self.features(x))


def train(model, loader, optimizer):
    logsoftmax = nn.LogSoftmax(dim=1)
    criterion = torch.nn.NLLLoss(reduce=False)
    for images, labels in loader:
        outputs = model(images)
        outputs = logsoftmax(outputs)
        loss = criterion(outputs, labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


model = FCN()
train(model, [(torch.randn(2, 3, 8, 8), torch.randint(0, 4, (2, 8, 8)))], torch.optim.SGD(model.parameters(), lr=0.1))
