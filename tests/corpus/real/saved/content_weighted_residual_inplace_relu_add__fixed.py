# source: https://github.com/pytorch/pytorch/issues/5687
# expect: clean
# mechanism: the block's left branch is an nn.Sequential ending in ReLU(inplace=True); `out += residual` then edits the ReLU output its backward saved
import torch
import torch.nn as nn
import torch.nn.functional as F


class BasicModule(nn.Module):
    def __init__(self):
        super(BasicModule, self).__init__()
        self.model_name = str(type(self))


class ResidualBlock(nn.Module):
    def __init__(self, ch_in, ch_out, shortcut=None):
        super(ResidualBlock, self).__init__()
        self.left = nn.Sequential(
            nn.Conv2d(ch_in, 16, 3, 1, 1),
            nn.ReLU(inplace=True),
            nn.Conv2d(16, ch_out, 3, 1, 1),
            nn.ReLU(inplace=True),
        )
        self.right = shortcut

    def forward(self, x):
        out = self.left(x)
        residual = x if self.right is None else self.right(x)
        out = out + residual
        return F.relu(out, inplace=False)


class ContentWeightedCNN(BasicModule):
    def __init__(self):
        super(ContentWeightedCNN, self).__init__()
        self.model_name = "ContentWeightedCNN"
        self.encoder = nn.Sequential(
            nn.Conv2d(3, 8, 3, 1, 1),
            nn.ReLU(inplace=True),
            ResidualBlock(8, 8),
            ResidualBlock(8, 8),
        )
        self.decoder = nn.Conv2d(8, 3, 3, 1, 1)

    def forward(self, x):
        return self.decoder(self.encoder(x))


model = ContentWeightedCNN()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
images = torch.rand(2, 3, 8, 8)
optimizer.zero_grad()
reconstructed = model(images)
loss = F.mse_loss(reconstructed, images)
loss.backward()
optimizer.step()
