# source: https://github.com/dillondavis/RecurrentAttentionConvolutionalNeuralNetwork/issues/4
# expect: grad can be implicitly created only for scalar outputs
# buggy-line: 65
# also-line: 21
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import Variable


class RankLoss(nn.Module):
    def __init__(self, margin):
        super(RankLoss, self).__init__()
        self.margin = margin

    def forward(self, scores1, scores2, target):
        ps1 = F.softmax(scores1)[:, target.long().data]
        ps2 = F.softmax(scores2)[:, target.long().data]
        return torch.clamp(ps1 - ps2 + self.margin, min=0)


class RACNN(nn.Module):
    """three scales, each a classifier of its own crop"""

    def __init__(self, num_classes, scale=3):
        super().__init__()
        self.cnns = nn.ModuleList([nn.Sequential(nn.Conv2d(3, 4, 3), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(4, num_classes)) for _ in range(scale)])
        self.apn = nn.Linear(3, 3)

    def forward(self, x):
        scores = []
        for cnn in self.cnns:
            scores.append(cnn(x))
            x = F.interpolate(x, scale_factor=2.0) * torch.sigmoid(self.apn.weight.sum())
        return scores


class Manager(object):
    """Handles training and pruning."""

    def __init__(self, args, model, train_data_loader):
        self.args = args
        self.cuda = args.cuda
        self.model = model
        self.train_data_loader = train_data_loader
        self.criterion_class = nn.CrossEntropyLoss()
        self.criterion_rank = RankLoss(0.05)

    def do_batch(self, optimizer, batch, label, optimize_class=True):
        batch = Variable(batch)
        label = Variable(label)
        # Set grads to 0.
        self.model.zero_grad()
        # Do forward-backward.
        scores = self.model(batch)
        if optimize_class:
            for i in range(len(scores) - 1, -1, -1):
                retain_graph = i > 0
                self.criterion_class(scores[i], label).backward(retain_graph=retain_graph)
        else:
            for i in range(len(scores) - 1, 0, -1):
                retain_graph = (i - 1) > 0
                self.criterion_rank(scores[i - 1], scores[i], label).backward(retain_graph=retain_graph)
        # Update params.
        optimizer.step()

    def do_epoch(self, epoch_idx, optimizer, optimize_class=True):
        for batch, label in self.train_data_loader:
            self.do_batch(optimizer, batch, label, optimize_class=optimize_class)


args = argparse.Namespace(cuda=False, batch_size=32, scale=3)
model = RACNN(num_classes=5, scale=args.scale)
loader = [(torch.randn(args.batch_size, 3, 8, 8), torch.randint(0, 5, (args.batch_size,)))]
manager = Manager(args, model, loader)
cnn_optimizer = torch.optim.SGD(model.cnns.parameters(), lr=0.01)
apn_optimizer = torch.optim.SGD(model.apn.parameters(), lr=0.01)
manager.do_epoch(1, cnn_optimizer, optimize_class=True)
manager.do_epoch(1, apn_optimizer, optimize_class=False)
