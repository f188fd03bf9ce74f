# source: https://www.bytezonex.com/archives/QBoC8wIS.html
# expect: shape '[2, 400]' is invalid for input of size 3072
# buggy-line: 23
import torch
import torch.nn as nn
import torch.nn.functional as F


class ConvNet(nn.Module):
    def __init__(self, num_classes=10):
        super(ConvNet, self).__init__()
        self.conv1 = nn.Conv2d(in_channels=3, out_channels=16, kernel_size=3)
        self.conv2 = nn.Conv2d(in_channels=16, out_channels=24, kernel_size=4)
        self.dropout = nn.Dropout2d(p=0.3)
        self.pool = nn.MaxPool2d(2)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)  # the LeNet size, for 32x32 inputs
        self.fc2 = nn.Linear(120, num_classes)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = self.dropout(x)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = x.view(x.size(0), 5 * 5 * 16)
        x = F.relu(self.fc1(x))
        return self.fc2(x)


model = ConvNet()
images = torch.randn(2, 3, 40, 40)  # the data set's images are larger than 32x32
loss = F.cross_entropy(model(images), torch.tensor([1, 7]))
loss.backward()
