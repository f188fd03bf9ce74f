# source: https://github.com/Pbihao/HDMNet/issues/21
# expect: clean
import argparse

import torch
import torch.nn.functional as F
from torch import nn


class OneModel(nn.Module):
    def __init__(self, args):
        super(OneModel, self).__init__()
        self.shot = args.shot
        self.criterion = nn.CrossEntropyLoss(ignore_index=255)
        self.down_query = nn.Sequential(nn.Conv2d(8, 4, kernel_size=1, padding=0, bias=False), nn.ReLU(inplace=True))
        self.down_supp = nn.Sequential(nn.Conv2d(8, 4, kernel_size=1, padding=0, bias=False), nn.ReLU(inplace=True))
        self.query_merge = nn.Sequential(nn.Conv2d(4 + 1, 2, kernel_size=1, padding=0, bias=False))
        self.gram_merge = nn.Conv2d(2, 1, kernel_size=1, bias=False)
        self.gram_merge.weight = nn.Parameter(torch.tensor([[1.0], [0.0]]).reshape_as(self.gram_merge.weight))
        self.cls_merge = nn.Conv2d(2, 1, kernel_size=1, bias=False)
        self.cls_merge.weight = nn.Parameter(torch.tensor([[1.0], [0.0]]).reshape_as(self.cls_merge.weight))

        # K-Shot Reweighting
        if args.shot > 1:
            self.kshot_trans_dim = args.kshot_trans_dim
            if self.kshot_trans_dim == 0:
                self.kshot_rw = nn.Conv2d(self.shot, self.shot, kernel_size=1, bias=False)
                self.kshot_rw.weight = nn.Parameter(torch.ones_like(self.kshot_rw.weight) / args.shot)

    def forward(self, x, s_x, y_m):
        query_feat = self.down_query(x)
        bs = x.shape[0]
        est_val_list = []
        for i in range(self.shot):
            supp_feat = self.down_supp(s_x[:, i])
            est_val_list.append((query_feat - supp_feat).flatten(1).norm(dim=1).reshape(bs, 1, 1, 1))
        est_val_total = torch.cat(est_val_list, 1)  # [bs, shot, 1, 1]
        if self.shot > 1:
            val1, idx1 = est_val_total.sort(1)
            val2, idx2 = idx1.sort(1)
            weight = self.kshot_rw(val1)
            idx3 = idx1.gather(1, idx2)
            weight = weight.gather(1, idx3)
            weight_soft = torch.softmax(weight, 1)
        else:
            weight_soft = torch.ones_like(est_val_total)
        est_val = (weight_soft * est_val_total).sum(1, True)  # [bs, 1, 1, 1]
        est_map = est_val.expand(bs, 1, x.shape[2], x.shape[3])
        meta_out = self.query_merge(torch.cat([query_feat, est_map], dim=1))
        meta_map_bg = self.gram_merge(torch.cat([meta_out[:, 0:1], est_map], dim=1))
        merge_bg = self.cls_merge(torch.cat([meta_map_bg, meta_out[:, 1:]], 1))
        final_out = torch.cat([merge_bg, meta_out[:, 1:]], dim=1)
        return self.criterion(final_out, y_m.long())

    def get_optim(self, model, args, LR):
        optimizer = torch.optim.AdamW(
            [
                {'params': model.down_supp.parameters(), "lr": LR * 10},
                {'params': model.down_query.parameters(), "lr": LR * 10},
                {'params': model.query_merge.parameters(), "lr": LR * 10},
                {'params': model.gram_merge.parameters(), "lr": LR * 10},
                {'params': model.cls_merge.parameters(), "lr": LR * 10},
            ] + ([{'params': model.kshot_rw.parameters(), "lr": LR * 10}] if args.shot > 1 else []), lr=LR, weight_decay=args.weight_decay, betas=(0.9, 0.999))
        return optimizer


parser = argparse.ArgumentParser()
parser.add_argument('--shot', type=int, default=5)
parser.add_argument('--kshot_trans_dim', type=int, default=0)
parser.add_argument('--weight_decay', type=float, default=0.01)
args = parser.parse_args([])
torch.manual_seed(0)
model = OneModel(args)
optimizer = model.get_optim(model, args, LR=0.01)
before = model.kshot_rw.weight.detach().clone()
for _ in range(3):
    x, s_x = torch.randn(2, 8, 4, 4), torch.randn(2, args.shot, 8, 4, 4)
    y_m = torch.randint(0, 2, (2, 4, 4))
    loss = model(x, s_x, y_m)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
assert not torch.equal(model.kshot_rw.weight, before)
