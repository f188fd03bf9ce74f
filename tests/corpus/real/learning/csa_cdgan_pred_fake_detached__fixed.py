# source: https://github.com/wangle53/CSA-CDGAN/issues/5
# expect: clean
import torch
import torch.nn as nn
import torch.optim as optim


class ct:
    ISIZE = 8
    NC = 3
    LR = 2e-4
    G_WEIGHT = 1
    D_WEIGHT = 1
    EPOCH = 2
    BATCH_SIZE = 2


class NetG(nn.Module):
    def __init__(self):
        super(NetG, self).__init__()
        self.net = nn.Sequential(nn.Conv2d(ct.NC * 2, 4, 3, padding=1), nn.ReLU(), nn.Conv2d(4, 1, 3, padding=1), nn.Sigmoid())

    def forward(self, x):
        return self.net(x)


class NetD(nn.Module):
    def __init__(self):
        super(NetD, self).__init__()
        self.net = nn.Sequential(nn.Conv2d(1, 4, 3, stride=2), nn.LeakyReLU(0.2), nn.Flatten(), nn.LazyLinear(1), nn.Sigmoid())

    def forward(self, x):
        return self.net(x).view(-1)


def train_network(train_dataloader):
    device = torch.device("cpu")
    netg = NetG().to(device=device)
    netd = NetD().to(device=device)
    netd(torch.zeros(1, 1, ct.ISIZE, ct.ISIZE))
    l_bce = nn.BCELoss()
    l_con = nn.L1Loss()
    optimizer_d = optim.Adam(netd.parameters(), lr=ct.LR, betas=(0.5, 0.999))
    optimizer_g = optim.Adam(netg.parameters(), lr=ct.LR, betas=(0.5, 0.999))
    for epoch in range(ct.EPOCH):
        netg.train()
        netd.train()
        for i, data in enumerate(train_dataloader):
            x1, x2, gt = data
            gt = gt[:, 0, :, :].unsqueeze(1)
            x = torch.cat((x1, x2), 1)
            real_label = torch.ones(size=(x1.shape[0],), dtype=torch.float32, device=device)
            fake_label = torch.zeros(size=(x1.shape[0],), dtype=torch.float32, device=device)

            fake = netg(x)
            pred_real = netd(gt)
            pred_fake = netd(fake)
            err_d_fake = l_bce(pred_fake, fake_label)
            err_g = l_con(fake, gt)
            err_g_total = ct.G_WEIGHT * err_g + ct.D_WEIGHT * err_d_fake

            pred_fake_ = netd(fake.detach())
            err_d_real = l_bce(pred_real, real_label)
            err_d_fake_ = l_bce(pred_fake_, fake_label)
            err_d_total = (err_d_real + err_d_fake_) * 0.5

            optimizer_g.zero_grad()
            err_g_total.backward()
            optimizer_g.step()
            optimizer_d.zero_grad()
            err_d_total.backward()
            optimizer_d.step()


torch.manual_seed(0)
loader = [(torch.rand(2, 3, 8, 8), torch.rand(2, 3, 8, 8), (torch.rand(2, 3, 8, 8) > 0.5).float()) for _ in range(2)]
train_network(loader)
