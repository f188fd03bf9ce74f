# source: https://github.com/thomasjpfan/pytorch_refinenet/issues/2
# expect: one of the variables needed for gradient computation has been modified by an inplace operation
# buggy-line: 25
# mechanism: chained residual pooling: `x += path` edits the ReLU output that the first max-pool of the chain saved as its input
import torch
import torch.nn as nn


class ChainedResidualPool(nn.Module):
    def __init__(self, feats, n_blocks=2):
        super().__init__()
        self.n_blocks = n_blocks
        self.relu = nn.ReLU()
        for i in range(1, n_blocks + 1):
            self.add_module(
                "block{}".format(i),
                nn.Sequential(nn.MaxPool2d(kernel_size=5, stride=1, padding=2), nn.Conv2d(feats, feats, 3, padding=1, bias=False)),
            )

    def forward(self, x):
        x = self.relu(x)
        path = x
        for i in range(1, self.n_blocks + 1):
            path = self.__getattr__("block{}".format(i))(path)
            x += path
        return x


class RefineNetBlock(nn.Module):
    def __init__(self, features=4):
        super().__init__()
        self.rcu = nn.Sequential(nn.ReLU(), nn.Conv2d(features, features, 3, padding=1))
        self.crp = ChainedResidualPool(features)
        self.output_conv = nn.Conv2d(features, 2, 1)

    def forward(self, *xs):
        out = self.rcu(xs[0])
        out = self.crp(out)
        return self.output_conv(out)


net = RefineNetBlock()
optimizer = torch.optim.SGD(net.parameters(), lr=0.01)
criterion = nn.CrossEntropyLoss()
img, target = torch.randn(1, 4, 6, 6), torch.randint(0, 2, (1, 6, 6))
optimizer.zero_grad()
loss = criterion(net(img), target)
loss.backward()
optimizer.step()
