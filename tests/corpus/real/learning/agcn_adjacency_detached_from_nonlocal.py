# source: https://github.com/queenie88/A-GCN/issues/4
# expect: silent: the adaptive adjacency is detached right after the non-local block computes it, so its theta / phi convolutions (in the optimizer's groups) never get a gradient and never train
# buggy-line: 112
# mechanism: `.detach()` on the only path from non_local_C1 to the loss; the training engine that runs the step is in another module (agcn_pkg/engine__adapt.py)
import argparse
import math

import torch
import torch.nn as nn
from torch.nn import Parameter

from agcn_pkg.util import gen_adj_new
from agcn_pkg.engine__adapt import GCNMultiLabelMAPEngine


class NONLocalBlock1D(nn.Module):
    def __init__(self, in_channels, inter_channels=None):
        super(NONLocalBlock1D, self).__init__()
        self.in_channels = in_channels
        self.inter_channels = inter_channels

        if self.inter_channels is None:
            self.inter_channels = in_channels // 2
            if self.inter_channels == 0:
                self.inter_channels = 1

        self.theta = nn.Conv1d(in_channels=self.in_channels, out_channels=self.inter_channels,
                               kernel_size=1, stride=1, padding=0)

        self.phi = nn.Conv1d(in_channels=self.in_channels, out_channels=self.inter_channels,
                             kernel_size=1, stride=1, padding=0)

    def forward(self, x):

        batch_size = x.size(0)
        theta_x = self.theta(x).view(batch_size, self.inter_channels, -1)
        theta_x = theta_x.squeeze(2)
        phi_x = self.phi(x).view(batch_size, self.inter_channels, -1)
        phi_x = phi_x.squeeze(2).transpose(0, 1)
        f = torch.matmul(theta_x, phi_x)
        N = f.size(-1)
        f_div_C = f / N

        return f_div_C


class GraphConvolution(nn.Module):
    """
    Simple GCN layer, similar to https://arxiv.org/abs/1609.02907
    """

    def __init__(self, in_features, out_features, bias=False):
        super(GraphConvolution, self).__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter(torch.Tensor(in_features, out_features))
        if bias:
            self.bias = Parameter(torch.Tensor(1, 1, out_features))
        else:
            self.register_parameter('bias', None)
        self.reset_parameters()

    def reset_parameters(self):
        stdv = 1. / math.sqrt(self.weight.size(1))
        self.weight.data.uniform_(-stdv, stdv)
        if self.bias is not None:
            self.bias.data.uniform_(-stdv, stdv)

    def forward(self, input, adj):
        support = torch.matmul(input, self.weight)
        output = torch.matmul(adj, support)
        if self.bias is not None:
            return output + self.bias
        else:
            return output


class GCNResnet(nn.Module):
    def __init__(self, model, num_classes, in_channel=300):
        super(GCNResnet, self).__init__()
        self.features = nn.Sequential(
            model.conv1,
            model.bn1,
            model.relu,
            model.maxpool,
            model.layer1,
            model.layer2,
            model.layer3,
            model.layer4,
        )
        self.num_classes = num_classes
        self.pooling = nn.MaxPool2d(14, 14)

        self.non_local_C1 = NONLocalBlock1D(in_channel)
        self.gc1 = GraphConvolution(in_channel, 1024)
        self.gc2 = GraphConvolution(1024, 2048)
        self.activate = nn.LeakyReLU(0.2)
        # image normalization
        self.image_normalization_mean = [0.485, 0.456, 0.406]
        self.image_normalization_std = [0.229, 0.224, 0.225]

    def forward(self, feature, inp):
        feature = self.features(feature)
        feature = self.pooling(feature)
        feature = feature.view(feature.size(0), -1)
        inp = inp[0]
        inp1 = inp.unsqueeze(2)
        adj = self.non_local_C1(inp1)
        A1 = torch.eye(80, 80).float()
        A1 = torch.autograd.Variable(A1)
        adj = adj + A1
        adj = gen_adj_new(adj).detach()
        x = self.gc1(inp, adj)
        x = self.activate(x)
        x = self.gc2(x, adj)
        x = x.transpose(0, 1)
        x = torch.matmul(feature, x)
        A = A1.unsqueeze(0)
        adj = adj.unsqueeze(0)
        A = torch.autograd.Variable(A)
        return x, adj, A

    def get_config_optim(self, lr, lrp):
        return [
            {'params': self.features.parameters(), 'lr': lr * lrp},
            {'params': self.non_local_C1.parameters(), 'lr': lr},
            {'params': self.gc1.parameters(), 'lr': lr},
            {'params': self.gc2.parameters(), 'lr': lr},
        ]


class _Backbone(nn.Module):
    """stands for torchvision's resnet101: the attributes GCNResnet reads, small"""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 2048, 1)
        self.bn1 = nn.BatchNorm2d(2048)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.Identity()
        self.layer1 = nn.Identity()
        self.layer2 = nn.Identity()
        self.layer3 = nn.Identity()
        self.layer4 = nn.Identity()


def gcn_resnet101(num_classes, pretrained=True, in_channel=300):
    model = _Backbone()
    return GCNResnet(model, num_classes, in_channel=in_channel)


parser = argparse.ArgumentParser(description='WILDCAT Training')
parser.add_argument('--lr', '--learning-rate', default=0.1, type=float)
parser.add_argument('--lrp', '--learning-rate-pretrained', default=0.1, type=float)
parser.add_argument('--momentum', default=0.9, type=float)
parser.add_argument('--weight-decay', '--wd', default=1e-4, type=float)
parser.add_argument('--image-size', '-i', default=14, type=int)


def main_coco():
    args = parser.parse_args([])
    num_classes = 80
    model = gcn_resnet101(num_classes=num_classes, pretrained=True, in_channel=16)
    criterion = nn.MultiLabelSoftMarginLoss()
    optimizer = torch.optim.SGD(model.get_config_optim(args.lr, args.lrp),
                                lr=args.lr,
                                momentum=args.momentum,
                                weight_decay=args.weight_decay)
    word_vec = torch.randn(1, num_classes, 16)
    train_loader = [(torch.randn(2, 3, args.image_size, args.image_size), word_vec,
                     (torch.rand(2, num_classes) > 0.9).float()) for _ in range(2)]
    engine = GCNMultiLabelMAPEngine({'image_size': args.image_size})
    theta_before = model.non_local_C1.theta.weight.detach().clone()
    engine.learning(model, criterion, train_loader, optimizer)
    return model, theta_before


if __name__ == '__main__':
    model, theta_before = main_coco()
    # the effect: the non-local block gets no gradient, so it never trains
    assert model.non_local_C1.theta.weight.grad is None
    assert torch.equal(model.non_local_C1.theta.weight, theta_before)
