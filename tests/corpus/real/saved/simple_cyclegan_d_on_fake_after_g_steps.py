# source: https://github.com/cy-xu/simple_CycleGAN/issues/3
# expect: one of the variables needed for gradient computation has been modified by an inplace operation
# buggy-line: 71
# also-line: 100
# also-line: 89
# also-line: 97
import itertools

import torch as t
import torch.nn as nn


class Config:
    lambda_X = 10.0
    lambda_Y = 10.0
    lambda_identity = 0.5
    lr = 2e-4
    max_epochs = 1


def generator():
    return nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(True), nn.Conv2d(8, 3, 3, padding=1), nn.Tanh())


def discriminator():
    return nn.Sequential(nn.Conv2d(3, 8, 4, stride=2, padding=1), nn.LeakyReLU(0.2, True), nn.Conv2d(8, 1, 3, padding=1))


class GANLoss(nn.Module):
    def __init__(self):
        super().__init__()
        self.loss = nn.MSELoss()

    def forward(self, prediction, target_is_real):
        target = t.ones_like(prediction) if target_is_real else t.zeros_like(prediction)
        return self.loss(prediction, target)


def train(**kwargs):
    opt = Config()
    netG_x, netG_y = generator(), generator()
    netD_x, netD_y = discriminator(), discriminator()
    criterionGAN = GANLoss()
    criterionCycle = nn.L1Loss()
    criterionIdt = nn.L1Loss()
    optimizer_g = t.optim.Adam(itertools.chain(netG_x.parameters(), netG_y.parameters()), lr=opt.lr, betas=(0.5, 0.999))
    optimizer_d = t.optim.Adam(itertools.chain(netD_x.parameters(), netD_y.parameters()), lr=opt.lr, betas=(0.5, 0.999))
    lambda_X, lambda_Y, lambda_identity = opt.lambda_X, opt.lambda_Y, opt.lambda_identity
    dataset = [{"A": t.randn(1, 3, 8, 8), "B": t.randn(1, 3, 8, 8)} for _ in range(2)]
    for epoch in range(opt.max_epochs):
        for i, data in enumerate(dataset):
            real_x = data["A"]
            real_y = data["B"]

            ######################
            # X -> Y' -> X^ cycle
            ######################
            optimizer_g.zero_grad()  # set g_x and g_y gradients to zero
            fake_y = netG_x(real_x)  # X -> Y'
            prediction = netD_x(fake_y)
            loss_G_X = criterionGAN(prediction, True)
            x_hat = netG_y(fake_y)  # X -> Y' -> X^
            loss_cycle_X = criterionCycle(x_hat, real_x) * lambda_X
            if lambda_identity > 0:
                idt_x = netG_x(real_y)
                loss_idt_x = criterionIdt(idt_x, real_y) * lambda_Y * lambda_identity
            else:
                loss_idt_x = 0.0
            loss_X = loss_G_X + loss_cycle_X + loss_idt_x
            loss_X.backward(retain_graph=True)
            optimizer_g.step()

            ######################
            # Y -> X' -> Y^ cycle
            ######################
            optimizer_g.zero_grad()  # set g_x and g_y gradients to zero
            fake_x = netG_y(real_y)  # Y -> X'
            prediction = netD_y(fake_x)
            loss_G_Y = criterionGAN(prediction, True)
            y_hat = netG_x(fake_x)  # Y -> X' -> Y^
            loss_cycle_Y = criterionCycle(y_hat, real_y) * lambda_Y
            if lambda_identity > 0:
                idt_y = netG_y(real_x)
                loss_idt_y = criterionIdt(idt_y, real_x) * lambda_X * lambda_identity
            else:
                loss_idt_y = 0.0
            loss_Y = loss_G_Y + loss_cycle_Y + loss_idt_y
            loss_Y.backward(retain_graph=True)
            optimizer_g.step()

            ######################
            # netD_x
            ######################
            optimizer_d.zero_grad()
            pred_real = netD_x(real_y)
            loss_D_x_real = criterionGAN(pred_real, True)
            pred_fake = netD_x(fake_y)
            loss_D_x_fake = criterionGAN(pred_fake, False)
            loss_D_x = (loss_D_x_real + loss_D_x_fake) * 0.5
            loss_D_x.backward()
            optimizer_d.step()


train()
