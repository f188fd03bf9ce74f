# source: https://github.com/pytorch/pytorch/issues/15428
# expect: one of the variables needed for gradient computation has been modified by an inplace operation
# buggy-line: 18
# also-line: 34
# mechanism: the residual branch starts with ReLU(inplace=True), so it edits the block's input x, which the shortcut convolution (run first) saved
import torch
import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(self, in_chan, out_chan, stride=1):
        super(Block, self).__init__()
        self.stride = stride
        self.in_chan = in_chan
        self.out_chan = out_chan
        self.residual = nn.Sequential(
            nn.ReLU(inplace=True),
            nn.Conv2d(in_chan, out_chan, kernel_size=3, stride=stride, padding=1, bias=False),
            nn.BatchNorm2d(out_chan),
            nn.ReLU(inplace=True),
            nn.Conv2d(out_chan, out_chan, kernel_size=3, stride=1, padding=1, bias=False),
        )
        self.shortcut = nn.Sequential(
            nn.Conv2d(in_chan, out_chan, kernel_size=1, stride=stride, bias=False),
            nn.BatchNorm2d(out_chan),
        )

    def forward(self, x):
        if not self.stride == 1 or not self.in_chan == self.out_chan:
            sc = self.shortcut(x)
        else:
            sc = x
        resd = self.residual(x)
        out = resd + sc
        return out


class Network(nn.Module):
    def __init__(self, n_classes=10):
        super(Network, self).__init__()
        self.conv1 = nn.Conv2d(3, 16, kernel_size=3, stride=1, padding=1, bias=False)
        self.layer1 = Block(16, 16, stride=1)
        self.layer2 = Block(16, 32, stride=2)
        self.layer3 = Block(32, 64, stride=2)
        self.bn = nn.BatchNorm2d(64)
        self.fc = nn.Linear(64, n_classes)

    def forward(self, x):
        x = self.conv1(x)
        x = self.layer1(x)
        x = self.layer2(x)
        x = self.layer3(x)
        x = F.relu(self.bn(x))
        x = torch.mean(x, dim=(2, 3))
        return self.fc(x)


if __name__ == '__main__':
    net = Network()
    criteria = nn.CrossEntropyLoss()
    optim = torch.optim.SGD(net.parameters(), lr=1e-3, momentum=0.9)
    inten = torch.randn(2, 3, 16, 16)
    label = torch.randint(0, 10, (2,))
    optim.zero_grad()
    logits = net(inten)
    loss = criteria(logits, label)
    loss.backward()
    optim.step()
