# source: https://github.com/microsoft/nni/issues/4521
# expect: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, 3)
        self.conv2 = nn.Conv2d(8, 16, 3)
        self.fc = nn.Linear(16 * 4 * 4, 10)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = F.relu(self.conv2(x))
        return self.fc(x.flatten(1))


def speedup_model(model, keep):
    """Replace conv2 and fc by smaller layers holding the un-masked weights."""
    small_conv = nn.Conv2d(8, keep, 3)
    small_fc = nn.Linear(keep * 4 * 4, 10)
    with torch.no_grad():
        small_conv.weight.copy_(model.conv2.weight[:keep])
        small_conv.bias.copy_(model.conv2.bias[:keep])
        small_fc.weight.copy_(model.fc.weight.view(10, 16, 16)[:, :keep].reshape(10, -1))
        small_fc.bias.copy_(model.fc.bias)
    model.conv2 = small_conv
    model.fc = small_fc


model = Net()
speedup_model(model, keep=8)
# the layers changed: the optimizer is built over the new ones
optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
before = model.fc.weight.detach().clone()
for epoch in range(3):
    x, y = torch.randn(4, 1, 8, 8), torch.randint(0, 10, (4,))
    optimizer.zero_grad()
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    optimizer.step()
assert not torch.equal(before, model.fc.weight)
