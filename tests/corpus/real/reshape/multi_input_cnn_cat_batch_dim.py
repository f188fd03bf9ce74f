# source: https://github.com/pytorch/pytorch/issues/139037
# expect: mat1 and mat2 shapes cannot be multiplied (12x4 and 24x2)
# buggy-line: 23
# also-line: 22
import torch
import torch.nn as nn


class MultiInputs(nn.Module):
    def __init__(self, n_views=6, feat=4):
        super().__init__()
        self.cnn = nn.Sequential(nn.Conv2d(1, feat, 3), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.sec = nn.Sequential(nn.Linear(n_views * feat, 2))

    def forward(self, input1, input2, input3, input4, input5, input6):
        c1 = self.cnn(input1)
        c2 = self.cnn(input2)
        c3 = self.cnn(input3)
        c4 = self.cnn(input4)
        c5 = self.cnn(input5)
        c6 = self.cnn(input6)
        all = torch.cat((c1, c2, c3, c4, c5, c6), 0)
        return self.sec(all)


model = MultiInputs()
views = [torch.randn(2, 1, 8, 8) for _ in range(6)]
logits = model(*views)
loss = nn.functional.cross_entropy(logits, torch.tensor([0, 1]))
loss.backward()
