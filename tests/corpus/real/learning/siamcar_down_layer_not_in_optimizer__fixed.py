# source: https://github.com/ohhhyeahhh/SiamCAR/issues/18
# expect: clean
# Copyright (c) SenseTime. All Rights Reserved.

from __future__ import absolute_import
from __future__ import division
from __future__ import print_function
from __future__ import unicode_literals

import argparse
import logging

import torch
import torch.nn as nn
from torch.nn.utils import clip_grad_norm_

from siamcar_pkg.model_builder import ModelBuilder
from siamcar_pkg.config import cfg


logger = logging.getLogger('global')
parser = argparse.ArgumentParser(description='siamcar tracking')
parser.add_argument('--seed', type=int, default=123456,
                    help='random seed')
args = parser.parse_args([])


def build_opt_lr(model, current_epoch=0):
    if current_epoch >= cfg.BACKBONE.TRAIN_EPOCH:
        for layer in cfg.BACKBONE.TRAIN_LAYERS:
            for param in getattr(model.backbone, layer).parameters():
                param.requires_grad = True
            for m in getattr(model.backbone, layer).modules():
                if isinstance(m, nn.BatchNorm2d):
                    m.train()
    else:
        for param in model.backbone.parameters():
            param.requires_grad = False
        for m in model.backbone.modules():
            if isinstance(m, nn.BatchNorm2d):
                m.eval()

    trainable_params = []
    trainable_params += [{'params': filter(lambda x: x.requires_grad,
                                           model.backbone.parameters()),
                          'lr': cfg.BACKBONE.LAYERS_LR * cfg.TRAIN.BASE_LR}]

    if cfg.ADJUST.ADJUST:
        trainable_params += [{'params': model.neck.parameters(),
                              'lr': cfg.TRAIN.BASE_LR}]

    trainable_params += [{'params': model.car_head.parameters(),
                          'lr': cfg.TRAIN.BASE_LR}]

    trainable_params += [{'params': model.down.parameters(),
                          'lr': cfg.TRAIN.BASE_LR}]

    optimizer = torch.optim.SGD(trainable_params,
                                momentum=cfg.TRAIN.MOMENTUM,
                                weight_decay=cfg.TRAIN.WEIGHT_DECAY)
    return optimizer


def train(train_loader, model, optimizer):
    for idx, data in enumerate(train_loader):
        outputs = model(data)
        loss = outputs['total_loss'].mean()

        optimizer.zero_grad()
        loss.backward()

        # clip gradient
        clip_grad_norm_(model.parameters(), cfg.TRAIN.GRAD_CLIP)
        optimizer.step()


def main():
    torch.manual_seed(args.seed)
    # create model
    model = ModelBuilder().train()
    dist_model = nn.DataParallel(model)

    # stands for the TrkDataset loader: template and search crops
    train_loader = [{'template': torch.randn(2, 3, 4, 4), 'search': torch.randn(2, 3, 8, 8)}
                    for _ in range(2)]

    # build optimizer
    optimizer = build_opt_lr(dist_model.module, cfg.TRAIN.START_EPOCH)

    down_before = model.down.weight.detach().clone()
    train(train_loader, dist_model, optimizer)
    return model, down_before


if __name__ == '__main__':
    model, down_before = main()
    assert not torch.equal(model.down.weight, down_before)
