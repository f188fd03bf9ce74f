# source: https://github.com/guopengf/FL-MRCM/issues/10
# expect: clean
#!/usr/bin/env python
# -*- coding: utf-8 -*-
# Python version: 3.6

import argparse
import time

import numpy as np
import torch
from torch import nn
from torch.autograd import Variable
from torch.nn import functional as F
from torch.utils.data import DataLoader, Dataset


class LocalUpdate_ad_da(object):
    # v1
    def __init__(self, args, device, dataset, dataset_target,optimizer,optimizer_fd,flag):
        self.args = args
        self.device = device
        self.loss_func = nn.L1Loss().to(device)
        self.adv_loss = nn.BCEWithLogitsLoss().to(device)
        self.selected_clients = []
        self.ldr_train = DataLoader(dataset, batch_size=self.args.local_bs, shuffle=True)
        self.target_domain = DataLoader(dataset_target, batch_size=self.args.local_bs, shuffle=True)
        self.optimizer = optimizer
        self.optimizer_fd = optimizer_fd
        self.flag = flag

    def set_requires_grad(self, nets, requires_grad=False):
        """Set requies_grad=Fasle for all the networks to avoid unnecessary computations"""
        if not isinstance(nets, list):
            nets = [nets]
        for net in nets:
            if net is not None:
                for param in net.parameters():
                    param.requires_grad = requires_grad

    def train(self, net, net_fd, epoch, idx, writer):
        net.train()
        net_fd.train()
        # train and update
        optimizer = self.optimizer
        optimizer_fd = self.optimizer_fd

        scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=40, gamma=0.1)

        epoch_loss = []
        epoch_loss_adv_g = []
        for iter in range(self.args.local_ep):
            batch_loss = []
            batch_loss_adv_g = []
            for batch_idx, (batch, batch_t) in enumerate(zip(self.ldr_train,self.target_domain)):
                input, target, mean, std, norm, fname, slice = batch
                input_t,target_t, _,_,_,_,_ = batch_t
                net.zero_grad()
                net_fd.zero_grad()
                output,z = net(input.to(self.device))
                output_t, z_t = net(input_t.to(self.device))

                # prepare labels for fd
                src_domain_code = np.repeat(np.array([[*([1]), *([0])]]), input.shape[0], axis=0)
                tgt_domain_code = np.repeat(np.array([[*([0]), *([1])]]), input_t.shape[0], axis=0)
                src_domain_code = Variable(torch.FloatTensor(src_domain_code).to(self.device), requires_grad=False)
                tgt_domain_code = Variable(torch.FloatTensor(tgt_domain_code).to(self.device), requires_grad=False)

                # update DF for source site
                if not self.flag:
                    self.set_requires_grad(net_fd, True)
                    src_domain_pred = net_fd(z.detach())
                    tgt_domain_pred = net_fd(z_t.detach())
                    df_loss_src = self.adv_loss(src_domain_pred, 1 - src_domain_code)
                    df_loss_tgt = self.adv_loss(tgt_domain_pred, 1 - tgt_domain_code)
                    df_loss = ((df_loss_src + df_loss_tgt)/2)

                    df_loss.backward()
                    optimizer_fd.step()

                # update Recon
                self.set_requires_grad(net_fd, False)
                loss_adv_g = 0
                if not self.flag:
                    # adv for recon net
                    src_domain_pred = net_fd(z)
                    tgt_domain_pred = net_fd(z_t)
                    df_loss_src = self.adv_loss(src_domain_pred, src_domain_code)
                    df_loss_tgt = self.adv_loss(tgt_domain_pred, tgt_domain_code)
                    loss_adv_g =((df_loss_src+df_loss_tgt)/2)
                    batch_loss_adv_g.append(loss_adv_g.detach().item())

                L1_loss = self.loss_func(output, target.to(self.device))
                if not self.flag:
                    loss = L1_loss + loss_adv_g
                else:
                    loss = L1_loss
                batch_loss.append(loss.detach().item())
                loss.backward()
                optimizer.step()
                scheduler.step()

            epoch_loss.append(sum(batch_loss)/len(batch_loss))
            epoch_loss_adv_g.append(sum(batch_loss_adv_g)/len(batch_loss_adv_g))
        writer.add_scalar('TrainLoss/total_loss/' + self.args.train_datasets[idx], sum(epoch_loss) / len(epoch_loss),epoch)
        writer.add_scalar('TrainLoss/adv_g/' + self.args.train_datasets[idx], sum(epoch_loss_adv_g) / len(epoch_loss_adv_g), epoch)

        return net.state_dict(), sum(epoch_loss) / len(epoch_loss)


class SliceData(Dataset):
    """stands for the fastMRI slices: (input, target, mean, std, norm, fname, slice)"""

    def __init__(self, n):
        self.x = torch.randn(n, 1, 8, 8)

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return self.x[i], self.x[i], 0.0, 1.0, 1.0, 'f', i


class ReconNet(nn.Module):
    """stands for the reconstruction U-Net returning (output, latent z)"""

    def __init__(self):
        super().__init__()
        self.enc = nn.Conv2d(1, 4, 3, padding=1)
        self.dec = nn.Conv2d(4, 1, 3, padding=1)
        self.to_z = nn.Linear(4 * 8 * 8, 16)

    def forward(self, x):
        h = F.relu(self.enc(x))
        return self.dec(h), self.to_z(h.flatten(1))


class Writer:
    """stands for tensorboardX.SummaryWriter"""

    def add_scalar(self, *args):
        pass


if __name__ == '__main__':
    args = argparse.Namespace(local_bs=4, local_ep=1, lr=1e-3, train_datasets=['fastMRI'], verbose=False)
    net = ReconNet()
    net_fd = nn.Sequential(nn.Linear(16, 16), nn.ReLU(), nn.Linear(16, 2))
    optimizer = torch.optim.RMSprop(net.parameters(), lr=args.lr)
    optimizer_fd = torch.optim.Adam(net_fd.parameters(), lr=args.lr)
    local = LocalUpdate_ad_da(args, 'cpu', SliceData(8), SliceData(8), optimizer, optimizer_fd, flag=False)
    local.train(net, net_fd, epoch=0, idx=0, writer=Writer())
    # the adversarial term reaches the recon net only through z: with it cut, to_z never learns
    assert net.to_z.weight.grad is not None
