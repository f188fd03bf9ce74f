# source: https://github.com/huanghoujing/person-reid-triplet-loss-baseline/issues/35
# expect: shape '[8, -1]' is invalid for input of size 22
# buggy-line: 20
# mechanism: `dist_mat[is_pos].view(N, -1)`: a boolean-mask selection has a data-dependent size (the number of True entries), divisible by N only when every label occurs equally often; needs mask-count reasoning or a probe with the script's labels
import torch
import torch.nn as nn


def euclidean_dist(x, y):
    xx = x.pow(2).sum(1, keepdim=True)
    yy = y.pow(2).sum(1, keepdim=True).t()
    return (xx + yy - 2 * x @ y.t()).clamp(min=1e-12).sqrt()


def hard_example_mining(dist_mat, labels):
    N = dist_mat.size(0)
    is_pos = labels.expand(N, N).eq(labels.expand(N, N).t())
    is_neg = labels.expand(N, N).ne(labels.expand(N, N).t())
    # assumes every identity has the same number of images in the batch
    dist_ap, _ = torch.max(dist_mat[is_pos].contiguous().view(N, -1), 1, keepdim=True)
    dist_an, _ = torch.min(dist_mat[is_neg].contiguous().view(N, -1), 1, keepdim=True)
    return dist_ap.squeeze(1), dist_an.squeeze(1)


class TripletLoss:
    def __init__(self, margin=0.3):
        self.ranking_loss = nn.MarginRankingLoss(margin=margin)

    def __call__(self, feat, labels):
        dist_ap, dist_an = hard_example_mining(euclidean_dist(feat, feat), labels)
        return self.ranking_loss(dist_an, dist_ap, torch.ones_like(dist_an))


model = nn.Linear(12, 6)
criterion = TripletLoss()
# the sampler ran short of images: identities 1 and 2 appear 3 times, 0 twice
labels = torch.tensor([0, 0, 1, 1, 1, 2, 2, 2])
loss = criterion(model(torch.randn(8, 12)), labels)
loss.backward()
