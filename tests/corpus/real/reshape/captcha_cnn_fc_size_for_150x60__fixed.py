# source: https://github.com/ice-tong/pytorch-captcha/issues/5
# expect: clean
import torch
import torch.nn as nn


class CNN(nn.Module):
    def __init__(self, num_class=36, num_char=4):
        super(CNN, self).__init__()
        self.num_class = num_class
        self.num_char = num_char
        self.conv = nn.Sequential(
            # batch*3*150*60
            nn.Conv2d(3, 16, 3, padding=(1, 1)),
            nn.MaxPool2d(2, 2),
            nn.BatchNorm2d(16),
            nn.ReLU(),
            # batch*16*75*30
            nn.Conv2d(16, 64, 3, padding=(1, 1)),
            nn.MaxPool2d(2, 2),
            nn.BatchNorm2d(64),
            nn.ReLU(),
            # batch*64*45*15
            nn.Conv2d(64, 512, 3, padding=(1, 1)),
            nn.MaxPool2d(2, 2),
            nn.BatchNorm2d(512),
            nn.ReLU(),
            # batch*512*22*7
            nn.Conv2d(512, 512, 3, padding=(1, 1)),
            nn.MaxPool2d(2, 2),
            nn.BatchNorm2d(512),
            nn.ReLU(),
            # batch*512*11*3
        )
        self.fc = nn.Linear(512 * 3 * 9, self.num_class * self.num_char)

    def forward(self, x):
        x = self.conv(x)
        x = x.view(-1, 512 * 3 * 9)
        x = self.fc(x)
        return x


model = CNN()
criterion = nn.MultiLabelSoftMarginLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=0.001)
img = torch.randn(2, 3, 60, 150)
target = torch.zeros(2, 36 * 4)
output = model(img)
loss = criterion(output, target)
optimizer.zero_grad()
loss.backward()
optimizer.step()
