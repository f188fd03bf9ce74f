# source: https://github.com/SimonThomine/RememberingNormality/issues/7
# expect: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


class NormalityMemory(nn.Module):
    def __init__(self, L, channel):
        super().__init__()
        self.keys = nn.Parameter(torch.randn(L, channel))
        self.values = nn.Parameter(torch.randn(L, channel))

    def forward(self, x):
        b, c, h, w = x.shape
        query = x.permute(0, 2, 3, 1).reshape(-1, c)
        attention = F.softmax(query @ self.keys.t(), dim=-1)
        read = attention @ self.values
        return read.reshape(b, h, w, c).permute(0, 3, 1, 2)


class StudentNet(nn.Module):
    def __init__(self, channel=4, L=6):
        super().__init__()
        self.conv = nn.Conv2d(3, channel, 3, padding=1)
        self.memory = NormalityMemory(L, channel)

    def forward(self, x):
        feature = self.conv(x)
        return feature + self.memory(feature)


student = StudentNet()
optimizer = torch.optim.Adam(student.parameters(), lr=1e-3)
keys_before = student.memory.keys.clone()
teacher_features = torch.randn(2, 4, 8, 8)
for _ in range(2):
    optimizer.zero_grad()
    loss = F.mse_loss(student(torch.randn(2, 3, 8, 8)), teacher_features)
    loss.backward()
    optimizer.step()
assert not torch.equal(student.memory.keys, keys_before)
