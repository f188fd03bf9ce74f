# source: https://github.com/XiaMooo/Yolo-Detect-Layer-Visualization/issues/1
# expect: Can't call numpy() on Tensor that requires grad
# buggy-line: 20
import torch
import torch.nn as nn

shown = []


def heatmap(array, square=True, cmap="viridis", ax=None):
    """stands for seaborn.heatmap: keeps what it would draw"""
    shown.append((array.shape, cmap))


def plot_multi_heatmap(*arrays, cmap="viridis", title=None, row=None, col=None):
    row = row or 1
    col = col or len(arrays)
    for i, array in enumerate(arrays):
        if isinstance(array, torch.Tensor):
            array = array.cpu().numpy()
        r = i // col
        c = i % col
        axi = (r, c) if row > 1 else c
        heatmap(array, square=True, cmap=cmap, ax=axi)


class Detect(nn.Module):
    def __init__(self, nc=3, ch=(8, 16)):
        super().__init__()
        self.no = nc + 5
        self.m = nn.ModuleList(nn.Conv2d(x, self.no, 1) for x in ch)

    def forward(self, xs):
        return [self.m[i](xs[i]) for i in range(len(xs))]


class TinyYolo(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 8, 3, stride=2, padding=1)
        self.down = nn.Conv2d(8, 16, 3, stride=2, padding=1)
        self.detect = Detect(nc=3, ch=(8, 16))

    def forward(self, x):
        p3 = self.stem(x)
        p4 = self.down(p3)
        return self.detect([p3, p4])


model = TinyYolo()
model.eval()
img = torch.rand(1, 3, 32, 32)
outputs = model(img)
# objectness of each detect layer, one heatmap per layer
plot_multi_heatmap(*[out[0, 4].sigmoid() for out in outputs], cmap="viridis", row=1, col=2)
