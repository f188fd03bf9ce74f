# source: https://github.com/psh01087/Vid-ODE/issues/6
# expect: one of the variables needed for gradient computation has been modified by an inplace operation
# buggy-line: 213
# also-line: 209
# mechanism: the generator's adversarial loss goes through both discriminators (netG_adv_loss); train() steps optimizer_netD (over list(netD_img.parameters()) + list(netD_seq.parameters())) before loss_netG.backward()
import argparse
import datetime
import time

import torch
import torch.nn as nn
import torch.optim as optim


def get_opt():
    parser = argparse.ArgumentParser()
    parser.add_argument("--name", default="vid_ode", help='Specify experiment')
    parser.add_argument('-b', '--batch_size', type=int, default=2)
    parser.add_argument('--epoch', type=int, default=1, help='epoch')
    parser.add_argument('--phase', default="train", choices=["train", "test_met"])
    parser.add_argument('--lr', type=float, default=1e-3, help="Starting learning rate.")
    parser.add_argument('--sample_size', type=int, default=4, help="Number of time points to sub-sample")
    parser.add_argument('--irregular', action='store_true', help="Train with irregular time-steps")
    parser.add_argument('--extrap', default=True, help="Set extrapolation mode. If this flag is not set, run interpolation mode.")
    parser.add_argument('--lamb_adv', type=float, default=0.003, help="Adversarial Loss lambda")
    parser.add_argument('--input_size', type=int, default=16)
    parser.add_argument('--log_print_freq', type=int, default=10)
    parser.add_argument('--ckpt_save_freq', type=int, default=5000)
    opt = parser.parse_args([])
    return opt


class ConvNormAct(nn.Module):

    def __init__(self, in_ch, out_ch, kernel_size, stride, padding, act_type='relu'):

        super(ConvNormAct, self).__init__()

        layers = []
        layers += [nn.Conv2d(in_ch, out_ch, kernel_size, stride, padding)]

        layers += [nn.InstanceNorm2d(out_ch)]

        if act_type == 'relu':
            layers += [nn.ReLU(inplace=True)]
        elif act_type == 'lrelu':
            layers += [nn.LeakyReLU(0.2)]

        self.main = nn.Sequential(*layers)

    def forward(self, x):
        return self.main(x)


class Discriminator(nn.Module):

    def __init__(self, in_ch, device, seq=False, is_extrap=True):

        super(Discriminator, self).__init__()

        self.device = device
        self.seq = seq
        self.is_extrap = is_extrap

        self.layer_1 = nn.Sequential(
            nn.Conv2d(in_ch, 8, kernel_size=4, stride=2, padding=1, bias=False),
            nn.LeakyReLU(0.2))
        self.layer_2 = ConvNormAct(8, 16, kernel_size=4, stride=2, padding=1, act_type='lrelu')
        self.last_conv = nn.Conv2d(16, 8, kernel_size=4, stride=1, padding=2, bias=False)

    def forward(self, x):
        h = self.layer_1(x)
        h = self.layer_2(h)
        return self.last_conv(h)

    def netD_adv_loss(self, real, fake, input_real):

        if self.seq:
            real, fake = self.rearrange_seq(real, fake, input_real, only_fake=False)
        elif not self.seq:
            b, t, c, h, w = fake.size()
            real = real.contiguous().view(-1, c, h, w)
            fake = fake.contiguous().view(-1, c, h, w)

        pred_fake = self.forward(fake.detach())
        pred_real = self.forward(real)

        # GAN loss type
        real_label = torch.ones_like(pred_real).to(self.device)
        loss_fake = torch.mean((pred_fake) ** 2)
        loss_real = torch.mean((pred_real - real_label) ** 2)
        loss_D = (loss_real + loss_fake) * 0.5

        return loss_D

    def netG_adv_loss(self, fake, input_real):
        b, t, c, h, w = fake.size()
        if self.seq:
            fake = self.rearrange_seq(None, fake, input_real, only_fake=True)
        elif not self.seq:
            fake = fake.contiguous().view(-1, c, h, w)

        pred_fake = self.forward(fake)

        # GAN loss type
        real_label = torch.ones_like(pred_fake).to(self.device)
        loss_real = torch.mean((pred_fake - real_label) ** 2)

        return loss_real

    def rearrange_seq(self, real, fake, input_real, only_fake=True):

        b, t, c, h, w = fake.size()
        fake_seqs = []
        for i in range(t):
            fake_seq = torch.cat([input_real[:, i:, ...], fake[:, :i+1, ...]], dim=1)
            fake_seqs += [fake_seq]
        fake_seqs = torch.cat(fake_seqs, dim=0).view(b * t, -1, h, w)

        if only_fake:
            return fake_seqs

        real_seqs = []
        for i in range(t):
            real_seq = torch.cat([input_real[:, i:, ...], real[:, :i+1, ...]], dim=1)
            real_seqs += [real_seq]
        real_seqs = torch.cat(real_seqs, dim=0).view(b * t, -1, h, w)

        return real_seqs, fake_seqs


def create_netD(opt, device):

    # Model
    seq_len = opt.sample_size // 2
    if opt.irregular and not opt.extrap:
        seq_len = opt.sample_size

    if opt.extrap:
        seq_len += 1

    netD_img = Discriminator(in_ch=3, device=device, seq=False, is_extrap=opt.extrap).to(device)
    netD_seq = Discriminator(in_ch=3 * (seq_len), device=device, seq=True, is_extrap=opt.extrap).to(device)

    # Optimizer
    optimizer_netD = optim.Adamax(list(netD_img.parameters()) + list(netD_seq.parameters()), lr=opt.lr)

    return netD_img, netD_seq, optimizer_netD


class VidODE(nn.Module):
    """stands for models/conv_odegru.py: predicts the next frames from the observed ones"""

    def __init__(self, opt, device):
        super(VidODE, self).__init__()
        self.t_out = opt.sample_size // 2
        self.net = nn.Conv2d(3 * (opt.sample_size // 2), 3 * self.t_out, 3, padding=1)

    def compute_all_losses(self, batch_dict):
        observed = batch_dict["observed_data"]
        b, t, c, h, w = observed.size()
        pred_y = torch.sigmoid(self.net(observed.reshape(b, t * c, h, w))).view(b, self.t_out, c, h, w)
        loss = torch.mean((pred_y - batch_dict["data_to_predict"]) ** 2)
        return {"loss": loss, "pred_y": pred_y}


def get_next_batch(opt):
    """stands for utils.get_next_batch(utils.get_data_dict(train_dataloader))"""
    t = opt.sample_size // 2
    return {"observed_data": torch.rand(opt.batch_size, t, 3, opt.input_size, opt.input_size),
            "data_to_predict": torch.rand(opt.batch_size, t, 3, opt.input_size, opt.input_size)}


def train(opt, netG, loader_objs, device):
    # Optimizer
    optimizer_netG = optim.Adamax(netG.parameters(), lr=opt.lr)

    # Discriminator
    netD_img, netD_seq, optimizer_netD = create_netD(opt, device)

    n_train_batches = loader_objs['n_train_batches']
    total_step = 0
    start_time = time.time()

    for epoch in range(opt.epoch):

        for it in range(n_train_batches):

            batch_dict = get_next_batch(opt)

            res = netG.compute_all_losses(batch_dict)
            loss_netG = res["loss"]

            # Compute Adversarial Loss
            real = batch_dict["data_to_predict"]
            fake = res["pred_y"]
            input_real = batch_dict["observed_data"]

            loss_netD = opt.lamb_adv * netD_seq.netD_adv_loss(real, fake, input_real)
            loss_netD += opt.lamb_adv * netD_img.netD_adv_loss(real, fake, None)

            loss_adv_netG = opt.lamb_adv * netD_seq.netG_adv_loss(fake, input_real)
            loss_adv_netG += opt.lamb_adv * netD_img.netG_adv_loss(fake, None)
            loss_netG += loss_adv_netG

            # Train D
            optimizer_netD.zero_grad()
            loss_netD.backward()
            optimizer_netD.step()

            # Train G
            optimizer_netG.zero_grad()
            loss_netG.backward()
            optimizer_netG.step()

            if (total_step + 1) % opt.log_print_freq == 0 or total_step == 0:
                et = time.time() - start_time
                et = str(datetime.timedelta(seconds=et))[:-7]
                log = f"Elapsed [{et}] Epoch [{epoch:03d}/{opt.epoch:03d}]\t"\
                        f"Iterations [{(total_step + 1):6d}] \t"\
                        f"Mse [{res['loss'].item():.4f}]\t"\
                        f"Adv_G [{loss_adv_netG.item():.4f}]\t"\
                        f"Adv_D [{loss_netD.item():.4f}]"
                print(log)
            total_step += 1


def main():
    opt = get_opt()
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = VidODE(opt, device).to(device)
    loader_objs = {'n_train_batches': 2}
    if opt.phase == 'train':
        train(opt, model, loader_objs, device)


if __name__ == '__main__':
    main()
