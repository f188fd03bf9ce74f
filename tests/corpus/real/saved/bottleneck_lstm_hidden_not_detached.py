# source: https://github.com/vikrant7/mobile-vod-bottleneck-lstm/issues/25
# expect: one of the variables needed for gradient computation has been modified by an inplace operation
# buggy-line: 49
# also-line: 55
# mechanism: the ConvLSTM hidden state is detached once per video (outer loop) but carried across frames (inner loop, backward with retain_graph=True); `optimizer.step()` edits the conv weights that the previous frame's graph saved
import torch
import torch.nn as nn
import torch.nn.functional as F


class BottleneckLSTMCell(nn.Module):
    def __init__(self, input_channels, hidden_channels):
        super().__init__()
        self.W = nn.Conv2d(input_channels + hidden_channels, 4 * hidden_channels, 3, padding=1)

    def forward(self, x, h, c):
        i, f, o, g = torch.chunk(self.W(torch.cat([x, h], 1)), 4, dim=1)
        c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
        h = torch.sigmoid(o) * torch.tanh(c)
        return h, c


class MobileVOD(nn.Module):
    def __init__(self, hidden=4):
        super().__init__()
        self.base = nn.Conv2d(3, 4, 3, padding=1)
        self.lstm = BottleneckLSTMCell(4, hidden)
        self.cls = nn.Conv2d(hidden, 2, 1)
        self.h = self.c = None

    def detach_hidden(self):
        self.h, self.c = self.h.detach(), self.c.detach()

    def forward(self, frame):
        feat = F.relu(self.base(frame))
        if self.h is None:
            self.h = torch.zeros_like(feat)
            self.c = torch.zeros_like(feat)
        self.h, self.c = self.lstm(feat, self.h, self.c)
        return self.cls(self.h)


net = MobileVOD()
optimizer = torch.optim.RMSprop(net.parameters(), lr=1e-3)
videos = [[(torch.randn(1, 3, 6, 6), torch.randint(0, 2, (1, 6, 6))) for _ in range(2)] for _ in range(1)]

for video in videos:
    if net.h is not None:
        net.detach_hidden()
    running_classification_loss = 0.0
    for images, labels in video:
        optimizer.zero_grad()
        confidence = net(images)
        classification_loss = F.cross_entropy(confidence, labels)
        classification_loss.backward(retain_graph=True)
        optimizer.step()
        running_classification_loss += classification_loss.item()
