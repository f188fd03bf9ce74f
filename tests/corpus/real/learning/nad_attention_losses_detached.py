# source: https://github.com/bboylyg/NAD/issues/8
# expect: silent: the three attention-distillation terms are detached before they are added to the loss, so backward only sees the classification loss and the student is never pulled towards the teacher's attention maps
# buggy-line: 97
# also-line: 98
# also-line: 99
# mechanism: criterionAT(...).detach() * beta terms summed into the loss that is backpropagated
import argparse

import torch
from torch import nn
import torch.nn.functional as F


class AT(nn.Module):
    '''
    Paying More Attention to Attention: Improving the Performance of Convolutional
    Neural Netkworks wia Attention Transfer
    https://arxiv.org/pdf/1612.03928.pdf
    '''
    def __init__(self, p):
        super(AT, self).__init__()
        self.p = p

    def forward(self, fm_s, fm_t):
        loss = F.mse_loss(self.attention_map(fm_s), self.attention_map(fm_t))
        return loss

    def attention_map(self, fm, eps=1e-6):
        am = torch.pow(torch.abs(fm), self.p)
        am = torch.sum(am, dim=1, keepdim=True)
        norm = torch.norm(am, dim=(2, 3), keepdim=True)
        am = torch.div(am, norm + eps)
        return am


class WRN(nn.Module):
    """stands for models/wresnet.py: three stages returning their activations and the logits"""
    def __init__(self, num_classes=10):
        super(WRN, self).__init__()
        self.block1 = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU())
        self.block2 = nn.Sequential(nn.Conv2d(8, 16, 3, stride=2, padding=1), nn.BatchNorm2d(16), nn.ReLU())
        self.block3 = nn.Sequential(nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.BatchNorm2d(32), nn.ReLU())
        self.fc = nn.Linear(32, num_classes)

    def forward(self, x):
        activation1 = self.block1(x)
        activation2 = self.block2(activation1)
        activation3 = self.block3(activation2)
        out = F.adaptive_avg_pool2d(activation3, 1).flatten(1)
        return activation1, activation2, activation3, self.fc(out)


class AverageMeter(object):
    def __init__(self):
        self.val, self.avg, self.sum, self.count = 0, 0, 0, 0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count


def get_arguments():
    parser = argparse.ArgumentParser()
    parser.add_argument('--lr', type=float, default=0.1)
    parser.add_argument('--epochs', type=int, default=1)
    parser.add_argument('--print_freq', type=int, default=50)
    parser.add_argument('--cuda', type=int, default=0)
    parser.add_argument('--beta1', type=int, default=500)
    parser.add_argument('--beta2', type=int, default=1000)
    parser.add_argument('--beta3', type=int, default=1000)
    parser.add_argument('--p', type=float, default=2.0)
    return parser


def train_step(opt, train_loader, nets, optimizer, criterions, epoch):
    at_losses = AverageMeter()

    snet = nets['snet']
    tnet = nets['tnet']

    criterionCls = criterions['criterionCls']
    criterionAT = criterions['criterionAT']

    snet.train()

    for idx, (img, target) in enumerate(train_loader, start=1):
        if opt.cuda:
            img = img.cuda()
            target = target.cuda()

        activation1_s, activation2_s, activation3_s, output_s = snet(img)
        activation1_t, activation2_t, activation3_t, _ = tnet(img)

        cls_loss = criterionCls(output_s, target)
        at3_loss = criterionAT(activation3_s, activation3_t).detach() * opt.beta3
        at2_loss = criterionAT(activation2_s, activation2_t).detach() * opt.beta2
        at1_loss = criterionAT(activation1_s, activation1_t).detach() * opt.beta1
        at_loss = at1_loss + at2_loss + at3_loss + cls_loss

        at_losses.update(at_loss.item(), img.size(0))

        optimizer.zero_grad()
        at_loss.backward()
        optimizer.step()
    return at3_loss


def train(opt):
    teacher = WRN()
    student = WRN()
    teacher.eval()
    nets = {'snet': student, 'tnet': teacher}

    for param in teacher.parameters():
        param.requires_grad = False

    optimizer = torch.optim.SGD(student.parameters(), lr=opt.lr, momentum=0.9, weight_decay=1e-4, nesterov=True)
    criterionCls = nn.CrossEntropyLoss()
    criterionAT = AT(opt.p)
    criterions = {'criterionCls': criterionCls, 'criterionAT': criterionAT}
    train_loader = [(torch.randn(4, 3, 16, 16), torch.randint(0, 10, (4,))) for _ in range(2)]
    for epoch in range(0, opt.epochs):
        at3_loss = train_step(opt, train_loader, nets, optimizer, criterions, epoch + 1)
    return at3_loss


opt = get_arguments().parse_args([])
at3_loss = train(opt)
# the effect: the attention term that is added to the loss carries no gradient
assert not at3_loss.requires_grad
