# source: https://github.com/pytorch/pytorch/issues/54765
# expect: clean
import torch
import torch.nn as nn
import torch.optim as optim


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        return self.fc(x)


class Net2(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.fc2 = nn.Linear(8, 2)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


net1 = Net()  # 1st network
optimizer = optim.Adam(net1.parameters(), lr=3e-2)

print("================================================")
# some other code......

net1 = Net2()  # another network
optimizer = optim.Adam(net1.parameters(), lr=3e-2)
start = net1.fc2.weight.detach().clone()
for step in range(5):
    x, y = torch.randn(16, 4), torch.randint(0, 2, (16,))
    optimizer.zero_grad()
    loss = nn.functional.cross_entropy(net1(x), y)
    loss.backward()
    optimizer.step()
assert not torch.equal(start, net1.fc2.weight)
