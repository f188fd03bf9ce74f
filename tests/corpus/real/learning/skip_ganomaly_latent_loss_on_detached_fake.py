# source: https://github.com/samet-akcay/skip-ganomaly/issues/5
# expect: silent: forward_d runs netd on self.fake.detach(), and backward_g builds err_g_adv and err_g_lat from that output: only the reconstruction term trains the generator
# buggy-line: 60
import argparse

import torch
import torch.nn as nn
import torch.optim as optim


def l2_loss(input, target, size_average=True):
    if size_average:
        return torch.mean(torch.pow((input - target), 2))
    else:
        return torch.pow((input - target), 2)


class NetG(nn.Module):
    def __init__(self, opt):
        super().__init__()
        self.net = nn.Sequential(nn.Conv2d(opt.nc, opt.ngf, 3, padding=1), nn.ReLU(), nn.Conv2d(opt.ngf, opt.nc, 3, padding=1), nn.Tanh())

    def forward(self, x):
        return self.net(x)


class NetD(nn.Module):
    def __init__(self, opt):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(opt.nc, opt.ndf, 3, stride=2, padding=1), nn.LeakyReLU(0.2))
        self.classifier = nn.Sequential(nn.Conv2d(opt.ndf, 1, 4), nn.Sigmoid())

    def forward(self, x):
        features = self.features(x)
        classifier = self.classifier(features).view(-1, 1).squeeze(1)
        return classifier, features


class Skipganomaly:
    def __init__(self, opt):
        self.opt = opt
        self.netg = NetG(opt)
        self.netd = NetD(opt)
        self.l_adv = nn.BCELoss()
        self.l_con = nn.L1Loss()
        self.l_lat = l2_loss
        self.optimizer_d = optim.Adam(self.netd.parameters(), lr=opt.lr, betas=(opt.beta1, 0.999))
        self.optimizer_g = optim.Adam(self.netg.parameters(), lr=opt.lr, betas=(opt.beta1, 0.999))

    def set_input(self, input):
        self.input = input
        self.real_label = torch.ones(input.size(0))
        self.fake_label = torch.zeros(input.size(0))

    def forward_g(self):
        self.fake = self.netg(self.input)

    def forward_d(self):
        self.pred_real, self.feat_real = self.netd(self.input)
        self.pred_fake, self.feat_fake = self.netd(self.fake.detach())

    def backward_g(self):
        self.err_g_adv = self.opt.w_adv * self.l_adv(self.pred_fake, self.real_label)
        self.err_g_con = self.opt.w_con * self.l_con(self.fake, self.input)
        self.err_g_lat = self.opt.w_lat * self.l_lat(self.feat_fake, self.feat_real)
        self.err_g = self.err_g_adv + self.err_g_con + self.err_g_lat
        self.err_g.backward(retain_graph=True)

    def backward_d(self):
        pred_fake, _ = self.netd(self.fake.detach())
        self.err_d_real = self.l_adv(self.pred_real, self.real_label)
        self.err_d_fake = self.l_adv(pred_fake, self.fake_label)
        self.err_d = (self.err_d_real + self.err_d_fake) * 0.5
        self.err_d.backward()

    def optimize_params(self):
        self.forward_g()
        self.forward_d()
        self.optimizer_g.zero_grad()
        self.backward_g()
        self.optimizer_g.step()
        self.optimizer_d.zero_grad()
        self.backward_d()
        self.optimizer_d.step()


torch.manual_seed(0)
opt = argparse.Namespace(nc=3, ngf=4, ndf=4, lr=2e-4, beta1=0.5, w_adv=1, w_con=50, w_lat=1)
model = Skipganomaly(opt)
model.set_input(torch.rand(2, 3, 8, 8) * 2 - 1)
model.optimize_params()
# the effect: the generator's gradient from the adversarial and latent terms is zero
grads = torch.autograd.grad(model.err_g_adv + model.err_g_lat, list(model.netg.parameters()), allow_unused=True)
assert all(g is None for g in grads)
