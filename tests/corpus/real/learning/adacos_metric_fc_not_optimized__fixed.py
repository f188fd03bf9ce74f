# source: https://github.com/4uiiurz1/pytorch-adacos/issues/10
# expect: clean
import argparse
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.nn import Parameter


class MNISTNet(nn.Module):
    def __init__(self, args):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(2))
        self.fc = nn.Linear(8 * 2 * 2, args.num_features)
        self.bn = nn.BatchNorm1d(args.num_features)

    def forward(self, input):
        x = self.features(input)
        x = x.view(x.size(0), -1)
        output = self.bn(self.fc(x))
        return output


class ArcFace(nn.Module):
    def __init__(self, num_features, num_classes, s=30.0, m=0.50):
        super(ArcFace, self).__init__()
        self.num_features = num_features
        self.n_classes = num_classes
        self.s = s
        self.m = m
        self.W = Parameter(torch.FloatTensor(num_classes, num_features))
        nn.init.xavier_uniform_(self.W)

    def forward(self, input, label=None):
        x = F.normalize(input)
        W = F.normalize(self.W)
        logits = F.linear(x, W)
        if label is None:
            return logits
        theta = torch.acos(torch.clamp(logits, -1.0 + 1e-7, 1.0 - 1e-7))
        target_logits = torch.cos(theta + self.m)
        one_hot = torch.zeros_like(logits)
        one_hot.scatter_(1, label.view(-1, 1).long(), 1)
        output = logits * (1 - one_hot) + target_logits * one_hot
        output *= self.s
        return output


def train(args, train_loader, model, metric_fc, criterion, optimizer):
    model.train()
    metric_fc.train()

    for i, (input, target) in enumerate(train_loader):
        feature = model(input)
        if args.metric == 'softmax':
            output = metric_fc(feature)
        else:
            output = metric_fc(feature, target)
        loss = criterion(output, target)

        # compute gradient and do optimizing step
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


parser = argparse.ArgumentParser()
parser.add_argument('--metric', default='arcface')
parser.add_argument('--num_features', default=3, type=int)
parser.add_argument('--lr', default=1e-1, type=float)
args = parser.parse_args([])
torch.manual_seed(0)
model = MNISTNet(args)
metric_fc = ArcFace(num_features=args.num_features, num_classes=10)
criterion = nn.CrossEntropyLoss()
optimizer = optim.SGD(
    [{'params': model.parameters()}, {'params': metric_fc.parameters()}], lr=args.lr, momentum=0.9
)
before = metric_fc.W.detach().clone()
loader = [(torch.randn(4, 1, 8, 8), torch.randint(0, 10, (4,))) for _ in range(3)]
train(args, loader, model, metric_fc, criterion, optimizer)
assert not torch.equal(metric_fc.W, before)
