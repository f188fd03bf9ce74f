# source: https://github.com/CSCYQJ/MICCAI23-ProtoContra-SFDA/issues/18
# expect: clean
import torch
import torch.nn as nn


class OutConv(nn.Module):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size=1)

    def forward(self, x):
        return self.conv(x)


class UNetTiny(nn.Module):
    def __init__(self, n_channels=1, n_classes=3):
        super().__init__()
        self.inc = nn.Sequential(nn.Conv2d(n_channels, 4, 3, padding=1), nn.ReLU(inplace=True))
        self.outc = OutConv(4, n_classes)

    def forward(self, x):
        return self.outc(self.inc(x))


class SFDATrainer:
    def __init__(self):
        self.model = UNetTiny()
        self.model.outc.requires_grad_(False)
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=1e-3)

    def train_step(self, img, pseudo_label):
        self.optimizer.zero_grad()
        loss = nn.functional.cross_entropy(self.model(img), pseudo_label)
        loss.backward()
        self.optimizer.step()
        return loss.item()


trainer = SFDATrainer()
before = trainer.model.outc.conv.weight.detach().clone()
trainer.train_step(torch.randn(2, 1, 6, 6), torch.randint(0, 3, (2, 6, 6)))
assert torch.equal(before, trainer.model.outc.conv.weight.detach())
