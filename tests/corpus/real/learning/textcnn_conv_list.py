# source: https://github.com/pytorch/pytorch/issues/1053
# expect: silent: the three Conv1d branches are in a plain list: they are neither moved nor trained with the model
# buggy-line: 15
import torch as th
import torch.nn.functional as F


class config:
    WORD_VEC_SIZE = 6


class Net(th.nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.conv1d = [
            th.nn.Conv1d(config.WORD_VEC_SIZE, 1, 3),
            th.nn.Conv1d(config.WORD_VEC_SIZE, 1, 4),
            th.nn.Conv1d(config.WORD_VEC_SIZE, 1, 5),
        ]
        self.fc = th.nn.Linear(3, 2)

    def forward(self, x):
        pooled = [F.relu(conv(x)).max(dim=2)[0] for conv in self.conv1d]
        return self.fc(th.cat(pooled, 1))


a = Net()
a.double()  # stands for a.cuda(): only registered submodules follow
assert a.fc.weight.dtype == th.float64
assert a.conv1d[0].weight.dtype == th.float32
optimizer = th.optim.SGD(a.parameters(), lr=0.1)
assert sum(p.numel() for g in optimizer.param_groups for p in g["params"]) == 8
