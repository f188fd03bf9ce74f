# source: https://github.com/pytorch/pytorch/issues/38469
# expect: shape '[-1, 400]' is invalid for input of size 384
# buggy-line: 22
import torch
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.conv1 = nn.Conv2d(3, 6, 5)
        self.pool = nn.MaxPool2d(2, 2)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        x = x.view(-1, 16 * 5 * 5)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        x = self.fc3(x)
        return x


model = Net()
input_shape = (3, 21, 21)
dummy_input = torch.randn(6, *input_shape)

# the report traces the model (torch.jit._get_trace_graph) to read its inputs and outputs
output = model(dummy_input)
print(output.shape)
