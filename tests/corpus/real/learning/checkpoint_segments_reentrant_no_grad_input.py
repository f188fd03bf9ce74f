# source: https://github.com/Lyken17/pytorch-memonger/issues/4
# expect: silent: reentrant checkpoint of a segment whose input does not require grad: the segment's weights get no gradient
# buggy-line: 17
import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint


class ResNetLike(nn.Module):
    def __init__(self):
        super().__init__()
        self.layer1 = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU())
        self.layer2 = nn.Sequential(nn.Conv2d(4, 4, 3, padding=1), nn.ReLU())
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        out = checkpoint(self.layer1, x, use_reentrant=True)
        out = self.layer2(out)
        return self.fc(out.mean(dim=(2, 3)))


model = ResNetLike()
images = torch.randn(2, 3, 6, 6)  # data never requires grad
loss = nn.functional.cross_entropy(model(images), torch.tensor([0, 1]))
loss.backward()
assert model.layer1[0].weight.grad is None
assert model.layer2[0].weight.grad is not None
