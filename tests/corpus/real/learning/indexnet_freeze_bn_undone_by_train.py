# source: https://github.com/poppinace/indexnet_matting/issues/35
# expect: silent: freeze_bn() puts the BatchNorm layers in eval mode once, in the constructor; train() calls net.train() every epoch, which puts them back in training mode, so the pretrained statistics drift
# buggy-line: 96
# also-line: 137
# mechanism: a module-wide train() after a per-layer eval() made in another module's constructor undoes the freeze
"""
IndexNet Matting

Indices Matter: Learning to Index for Deep Image Matting
IEEE/CVF International Conference on Computer Vision, 2019
"""

import os
import argparse
from time import time

import numpy as np

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

from indexnet_pkg.hlmobilenetv2 import hlmobilenetv2

# model-related parameters
OUTPUT_STRIDE = 32
CONV_OPERATOR = 'std_conv' # choose in ['std_conv', 'dep_sep_conv']
DECODER = 'indexnet' # choose in ['unet_style', 'deeplabv3+', 'refinenet', 'indexnet']
DECODER_KERNEL_SIZE = 5
BACKBONE = 'mobilenetv2' # choose in ['mobilenetv2', 'vgg16']
INDEXNET = 'depthwise' # choose in ['holistic', 'depthwise']
INDEX_MODE = 'm2o' # choose in ['o2o', 'm2o']

# training-related parameters
BATCH_SIZE = 2
CROP_SIZE = 32
LEARNING_RATE = 1e-5
MULT = 100
NUM_EPOCHS = 2
PRINT_EVERY = 1
RECORD_EVERY = 20

device = torch.device("cpu")

hlbackbone = {
    'mobilenetv2': hlmobilenetv2,
}

def get_arguments():
    """Parse all the arguments provided from the CLI."""
    parser = argparse.ArgumentParser(description="Deep-Image-Matting")
    parser.add_argument("--output-stride", type=int, default=OUTPUT_STRIDE, help="Output stride of the model.")
    parser.add_argument("--conv-operator", type=str, default=CONV_OPERATOR, help="Convolutional operator used in decoder.")
    parser.add_argument("--backbone", type=str, default=BACKBONE, help="Backbone used.")
    parser.add_argument("--decoder", type=str, default=DECODER, help="Decoder style.")
    parser.add_argument("--decoder-kernel-size", type=int, default=DECODER_KERNEL_SIZE, help="Decoder kernel size.")
    parser.add_argument("--indexnet", type=str, default=INDEXNET, choices=['holistic', 'depthwise'], help="Use holistic or depthwise index networks.")
    parser.add_argument("--index-mode", type=str, default=INDEX_MODE, choices=['o2o', 'm2o'], help="Type of depthwise index network.")
    parser.add_argument("--use-nonlinear", action="store_true", help="Whether to use nonlinearity in IndexNet.")
    parser.add_argument("--use-context", action="store_true", help="Whether to use context in IndexNet.")
    parser.add_argument("--apply-aspp", action="store_true", help="Whether to perform ASPP.")
    parser.add_argument("--sync-bn", action="store_true", help="Whether to apply synchronized batch normalization.")
    parser.add_argument("--crop-size", type=int, default=CROP_SIZE, help="Size of crop.")
    parser.add_argument("--batch-size", type=int, default=BATCH_SIZE, help="Number of images sent to the network in one step.")
    parser.add_argument("--learning-rate", type=float, default=LEARNING_RATE, help="Base learning rate for training.")
    parser.add_argument("--mult", type=float, default=MULT, help="LR multiplier for pretrained layers.")
    parser.add_argument("--num-epochs", type=int, default=NUM_EPOCHS, help="Number of training steps.")
    parser.add_argument("--print-every", type=int, default=PRINT_EVERY, help="Print information every often.")
    parser.add_argument("--record-every", type=int, default=RECORD_EVERY, help="Record loss every often.")
    return parser.parse_args([])

# implementation of the composition loss and alpha loss
def weighted_loss(pd, gt, wl=0.5, epsilon=1e-6):
    bs, _, h, w = pd.size()
    mask = gt[:, 1, :, :].view(bs, 1, h, w)
    alpha_gt = gt[:, 0, :, :].view(bs, 1, h, w)
    diff_alpha = (pd - alpha_gt) * mask
    loss_alpha = torch.sqrt(diff_alpha * diff_alpha + epsilon ** 2)
    loss_alpha = loss_alpha.sum(dim=2).sum(dim=2) / mask.sum(dim=2).sum(dim=2)
    loss_alpha = loss_alpha.sum() / bs

    fg = gt[:, 2:5, :, :]
    bg = gt[:, 5:8, :, :]
    c_p = pd * fg + (1 - pd) * bg
    c_g = gt[:, 8:11, :, :]
    diff_color = (c_p - c_g) * mask
    loss_composition = torch.sqrt(diff_color * diff_color + epsilon ** 2)
    loss_composition = loss_composition.sum(dim=2).sum(dim=2) / mask.sum(dim=2).sum(dim=2)
    loss_composition = loss_composition.sum() / bs

    return wl * loss_alpha + (1 - wl) * loss_composition

def train(net, train_loader, optimizer, epoch, scheduler, args):
    # switch to train mode
    net.train()
    
    running_loss = 0.0
    for i, sample in enumerate(train_loader):
        inputs, targets = sample['image'], sample['alpha']
        # forward
        outputs = net(inputs)
        # zero the parameter gradients
        optimizer.zero_grad()
        # compute loss
        loss = weighted_loss(outputs, targets)
        # backward + optimize
        loss.backward()
        optimizer.step()
        # collect and print statistics
        running_loss += loss.item()
    net.train_loss['epoch_loss'].append(running_loss / (i+1))


class AdobeImageMattingDataset(Dataset):
    """stands for hldataset.AdobeImageMattingDataset: random crops"""

    def __init__(self, n, crop_size):
        g = torch.Generator().manual_seed(0)
        self.images = torch.rand(n, 4, crop_size, crop_size, generator=g)
        self.alphas = torch.rand(n, 11, crop_size, crop_size, generator=g)

    def __len__(self):
        return len(self.images)

    def __getitem__(self, i):
        return {'image': self.images[i], 'alpha': self.alphas[i]}


def main():
    args = get_arguments()

    # instantiate network
    hlnet = hlbackbone[args.backbone]
    net = hlnet(
        pretrained=True,
        freeze_bn=True, 
        output_stride=args.output_stride, 
        input_size=args.crop_size, 
        apply_aspp=args.apply_aspp,
        conv_operator=args.conv_operator,
        decoder=args.decoder,
        decoder_kernel_size=args.decoder_kernel_size,
        indexnet=args.indexnet,
        index_mode=args.index_mode,
        use_nonlinear=args.use_nonlinear,
        use_context=args.use_context,
        sync_bn=args.sync_bn
    )

    # filter parameters
    pretrained_params = []
    learning_params = []
    for p in net.named_parameters():
        if 'dconv' in p[0] or 'pred' in p[0] or 'index' in p[0]:
            learning_params.append(p[1])
        else:
            pretrained_params.append(p[1])

    # define optimizer
    optimizer = torch.optim.Adam(
        [
            {'params': learning_params},
            {'params': pretrained_params, 'lr': args.learning_rate / args.mult},
        ],
        lr=args.learning_rate
    )
    net.train_loss = {'running_loss': [], 'epoch_loss': []}

    train_loader = DataLoader(AdobeImageMattingDataset(4, args.crop_size), batch_size=args.batch_size, shuffle=True)
    bn = net.layer0[1]
    pretrained_mean = bn.running_mean.clone()
    for epoch in range(args.num_epochs):
        train(net, train_loader, optimizer, epoch, None, args)
    return bn, pretrained_mean


if __name__ == "__main__":
    bn, pretrained_mean = main()
    # freeze_bn() ran once in __init__; train() switched the BatchNorms back and their statistics moved
    assert bn.training
    assert not torch.equal(bn.running_mean, pretrained_mean)
