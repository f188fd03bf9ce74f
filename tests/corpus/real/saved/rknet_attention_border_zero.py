# source: https://github.com/AggMan96/RK-Net/issues/9
# expect: one of the variables needed for gradient computation has been modified by an inplace operation
# buggy-line: 28
# also-line: 29
# also-line: 30
# also-line: 31
# mechanism: index assignment into an attention map that a ReLU produced (and saved), behind an `if self.polish:` flag
import torch
import torch.nn as nn


class USAM(nn.Module):
    def __init__(self, kernel_size=3, padding=1, polish=True):
        super().__init__()
        self.conv = nn.Conv2d(1, 1, kernel_size, padding=padding, bias=False)
        self.bn = nn.BatchNorm2d(1)
        self.relu = nn.ReLU()
        self.polish = polish

    def S(self, x):
        x = self.bn(self.conv(x))
        return self.relu(x)

    def forward(self, x):
        pooled = x.mean(dim=1, keepdim=True)
        att = self.S(pooled)
        if self.polish:
            att[:, :, :, 0] = 0
            att[:, :, :, -1] = 0
            att[:, :, 0, :] = 0
            att[:, :, -1, :] = 0
        att = torch.sigmoid(att)
        return x * att


class Backbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 4, 3, padding=1)
        self.usam = USAM()
        self.classifier = nn.Linear(4, 5)

    def forward(self, img):
        feat = self.usam(self.stem(img))
        return self.classifier(feat.mean(dim=(2, 3)))


model = Backbone()
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
images = torch.randn(2, 3, 12, 12)
labels = torch.tensor([1, 3])

optimizer.zero_grad()
loss = criterion(model(images), labels)
loss.backward()
optimizer.step()
