# source: https://github.com/huanghoujing/person-reid-triplet-loss-baseline/issues/35
# expect: clean
import torch
import torch.nn as nn


def euclidean_dist(x, y):
    xx = x.pow(2).sum(1, keepdim=True)
    yy = y.pow(2).sum(1, keepdim=True).t()
    return (xx + yy - 2 * x @ y.t()).clamp(min=1e-12).sqrt()


def hard_example_mining(dist_mat, labels):
    N = dist_mat.size(0)
    is_pos = labels.expand(N, N).eq(labels.expand(N, N).t())
    # masked max/min per row: works whatever the number of images per identity
    dist_ap = dist_mat.masked_fill(~is_pos, float("-inf")).max(1)[0]
    dist_an = dist_mat.masked_fill(is_pos, float("inf")).min(1)[0]
    return dist_ap, dist_an


class TripletLoss:
    def __init__(self, margin=0.3):
        self.ranking_loss = nn.MarginRankingLoss(margin=margin)

    def __call__(self, feat, labels):
        dist_ap, dist_an = hard_example_mining(euclidean_dist(feat, feat), labels)
        return self.ranking_loss(dist_an, dist_ap, torch.ones_like(dist_an))


model = nn.Linear(12, 6)
criterion = TripletLoss()
labels = torch.tensor([0, 0, 1, 1, 1, 2, 2, 2])
loss = criterion(model(torch.randn(8, 12)), labels)
loss.backward()
