# source: https://github.com/wkentaro/pytorch-fcn/pull/56
# expect: silent: validate() runs every interval_validate iterations, in the middle of an epoch, switches the model to eval and never back, so the rest of the epoch trains with dropout off
# buggy-line: 68
# also-line: 109
# mechanism: model.eval() in a Trainer method called from the middle of the training loop; train() only at the start of each epoch
import datetime
import math
import os
import os.path as osp

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import Variable


def cross_entropy2d(input, target, weight=None, size_average=True):
    # input: (n, c, h, w), target: (n, h, w)
    n, c, h, w = input.size()
    # log_p: (n, c, h, w)
    log_p = F.log_softmax(input, dim=1)
    # log_p: (n, h, w, c)
    log_p = log_p.transpose(1, 2).transpose(2, 3).contiguous()
    log_p = log_p[target.view(n, h, w, 1).repeat(1, 1, 1, c) >= 0]
    log_p = log_p.view(-1, c)
    # target: (n*h*w,)
    mask = target >= 0
    target = target[mask]
    loss = F.nll_loss(log_p, target, weight=weight, reduction='sum')
    if size_average:
        loss /= mask.data.sum()
    return loss


class Trainer(object):

    def __init__(self, cuda, model, optimizer,
                 train_loader, val_loader, out, max_iter,
                 size_average=False, interval_validate=None):
        self.cuda = cuda

        self.model = model
        self.optim = optimizer

        self.train_loader = train_loader
        self.val_loader = val_loader

        self.timestamp_start = datetime.datetime.now()
        self.size_average = size_average

        if interval_validate is None:
            self.interval_validate = len(self.train_loader)
        else:
            self.interval_validate = interval_validate

        self.out = out
        if not osp.exists(self.out):
            os.makedirs(self.out)

        self.epoch = 0
        self.iteration = 0
        self.max_iter = max_iter
        self.best_mean_iu = 0
        self.modes_seen_in_training = []

    def validate(self):
        self.model.eval()

        val_loss = 0
        for batch_idx, (data, target) in enumerate(self.val_loader):
            if self.cuda:
                data, target = data.cuda(), target.cuda()
            with torch.no_grad():
                score = self.model(data)

            loss = cross_entropy2d(score, target,
                                   size_average=self.size_average)
            if np.isnan(float(loss.item())):
                raise ValueError('loss is nan while validating')
            val_loss += float(loss.item()) / len(data)

        val_loss /= len(self.val_loader)

        with open(osp.join(self.out, 'log.csv'), 'a') as f:
            elapsed_time = (datetime.datetime.now() - self.timestamp_start).total_seconds()
            log = [self.epoch, self.iteration, val_loss, elapsed_time]
            f.write(','.join(map(str, log)) + '\n')

        torch.save({
            'epoch': self.epoch,
            'iteration': self.iteration,
            'arch': self.model.__class__.__name__,
            'optim_state_dict': self.optim.state_dict(),
            'model_state_dict': self.model.state_dict(),
            'best_mean_iu': self.best_mean_iu,
        }, osp.join(self.out, 'checkpoint.pth.tar'))

    def train_epoch(self):
        self.model.train()

        for batch_idx, (data, target) in enumerate(self.train_loader):
            iteration = batch_idx + self.epoch * len(self.train_loader)
            if self.iteration != 0 and (iteration - 1) != self.iteration:
                continue  # for resuming
            self.iteration = iteration

            if self.iteration % self.interval_validate == 0:
                self.validate()

            self.modes_seen_in_training.append(self.model.training)

            if self.cuda:
                data, target = data.cuda(), target.cuda()
            data, target = Variable(data), Variable(target)
            self.optim.zero_grad()
            score = self.model(data)

            loss = cross_entropy2d(score, target,
                                   size_average=self.size_average)
            loss /= len(data)
            if np.isnan(float(loss.item())):
                raise ValueError('loss is nan while training')
            loss.backward()
            self.optim.step()

            if self.iteration >= self.max_iter:
                break

    def train(self):
        max_epoch = int(math.ceil(1. * self.max_iter / len(self.train_loader)))
        for epoch in range(self.epoch, max_epoch):
            self.epoch = epoch
            self.train_epoch()
            if self.iteration >= self.max_iter:
                break


class FCN32s(nn.Module):
    """stands for torchfcn.models.FCN32s: convs, ReLU, Dropout2d, a score layer, upsampling"""

    def __init__(self, n_class=21):
        super(FCN32s, self).__init__()
        self.conv1_1 = nn.Conv2d(3, 8, 3, padding=1)
        self.relu1_1 = nn.ReLU(inplace=True)
        self.pool1 = nn.MaxPool2d(2, stride=2, ceil_mode=True)
        self.fc6 = nn.Conv2d(8, 16, 3, padding=1)
        self.relu6 = nn.ReLU(inplace=True)
        self.drop6 = nn.Dropout2d()
        self.score_fr = nn.Conv2d(16, n_class, 1)
        self.upscore = nn.ConvTranspose2d(n_class, n_class, 2, stride=2, bias=False)

    def forward(self, x):
        h = self.relu1_1(self.conv1_1(x))
        h = self.pool1(h)
        h = self.drop6(self.relu6(self.fc6(h)))
        h = self.score_fr(h)
        return self.upscore(h)


class SBDClassSeg(torch.utils.data.Dataset):
    """stands for torchfcn.datasets.SBDClassSeg: random images and labels"""

    class_names = np.array(['background', 'aeroplane', 'bicycle'])

    def __init__(self, n=8):
        g = torch.Generator().manual_seed(0)
        self.imgs = torch.randn(n, 3, 16, 16, generator=g)
        self.lbls = torch.randint(0, len(self.class_names), (n, 16, 16), generator=g)

    def __len__(self):
        return len(self.imgs)

    def __getitem__(self, index):
        return self.imgs[index], self.lbls[index]


def main():
    cuda = torch.cuda.is_available()
    torch.manual_seed(1337)
    train_loader = torch.utils.data.DataLoader(SBDClassSeg(8), batch_size=1, shuffle=True)
    val_loader = torch.utils.data.DataLoader(SBDClassSeg(2), batch_size=1, shuffle=False)
    model = FCN32s(n_class=3)
    optim = torch.optim.SGD(model.parameters(), lr=1.0e-10, momentum=0.99, weight_decay=0.0005)
    trainer = Trainer(
        cuda=cuda,
        model=model,
        optimizer=optim,
        train_loader=train_loader,
        val_loader=val_loader,
        out='logs',
        max_iter=12,
        interval_validate=4,
    )
    trainer.train()
    # validate() at iteration 0 of each epoch (and every 4) leaves the model in eval mode
    assert not any(trainer.modes_seen_in_training), trainer.modes_seen_in_training


if __name__ == '__main__':
    main()
