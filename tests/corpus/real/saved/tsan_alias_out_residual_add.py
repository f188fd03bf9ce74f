# source: https://github.com/Jee-King/TSAN/issues/3
# expect: one of the variables needed for gradient computation has been modified by an inplace operation
# buggy-line: 30
# also-line: 28
# mechanism: `out = x` aliases the block input (a ReLU output that ReLU saved); the loop then accumulates residuals into it with `+=`
import torch
import torch.nn as nn


class ResidualBlock(nn.Module):
    def __init__(self, n_feats):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(n_feats, n_feats, 3, padding=1), nn.ReLU(), nn.Conv2d(n_feats, n_feats, 3, padding=1))

    def forward(self, x):
        return self.body(x)


class AttentionGroup(nn.Module):
    def __init__(self, n_feats=4, n_blocks=2):
        super().__init__()
        self.head = nn.Sequential(nn.Conv2d(1, n_feats, 3, padding=1), nn.ReLU())
        self.blocks = nn.ModuleList([ResidualBlock(n_feats) for _ in range(n_blocks)])
        self.tail = nn.Conv2d(n_feats, 1, 3, padding=1)

    def forward(self, lr):
        x = self.head(lr)
        out = x
        for block in self.blocks:
            out += block(x)
        return self.tail(out) + lr


model = AttentionGroup()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)
lr_img, hr_img = torch.rand(2, 1, 6, 6), torch.rand(2, 1, 6, 6)
optimizer.zero_grad()
loss = nn.functional.l1_loss(model(lr_img), hr_img)
loss.backward()
optimizer.step()
