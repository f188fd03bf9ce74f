# source: https://github.com/gsp-27/pytorch_Squeezenet/issues/2
# expect: shape '[8, 10]' is invalid for input of size 40
# buggy-line: 36
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F

parser = argparse.ArgumentParser()
parser.add_argument("--batch-size", type=int, default=8)
parser.add_argument("--num_classes", type=int, default=10)
args = parser.parse_args([])


class SqueezeNetTail(nn.Module):
    def __init__(self, num_classes):
        super().__init__()
        self.conv10 = nn.Conv2d(6, num_classes, 1)

    def forward(self, x):
        return F.adaptive_avg_pool2d(F.relu(self.conv10(x)), 1)


net = SqueezeNetTail(args.num_classes)
optimizer = torch.optim.SGD(net.parameters(), lr=0.01)
dataset = torch.randn(20, 6, 4, 4), torch.randint(0, args.num_classes, (20,))


def train(epoch):
    n = dataset[0].size(0)
    for start in range(0, n, args.batch_size):  # 8 + 8 + 4: the last batch is short
        data, target = dataset[0][start : start + args.batch_size], dataset[1][start : start + args.batch_size]
        optimizer.zero_grad()
        scores = net(data)
        scores = scores.view(args.batch_size, args.num_classes)
        loss = F.cross_entropy(scores, target)
        loss.backward()
        optimizer.step()


train(1)
