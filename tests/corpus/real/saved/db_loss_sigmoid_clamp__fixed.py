# source: https://github.com/wutong16/DistributionBalancedLoss/issues/20
# expect: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


def reduce_loss(loss, reduction):
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


def sigmoid_focal_loss(pred, target, weight=None, gamma=2.0, alpha=0.25, reduction="mean"):
    pred_sigmoid = pred.sigmoid()
    pred_sigmoid = pred_sigmoid.clamp(min=1e-4, max=1 - 1e-4)
    target = target.type_as(pred)
    pt = (1 - pred_sigmoid) * target + pred_sigmoid * (1 - target)
    focal_weight = (alpha * target + (1 - alpha) * (1 - target)) * pt.pow(gamma)
    loss = F.binary_cross_entropy(pred_sigmoid, target, reduction="none") * focal_weight
    if weight is not None:
        loss = loss * weight
    return reduce_loss(loss, reduction)


class ResampleLoss(nn.Module):
    def __init__(self, use_sigmoid=True, reduction="mean", loss_weight=1.0, focal=True):
        super().__init__()
        self.use_sigmoid = use_sigmoid
        self.reduction = reduction
        self.loss_weight = loss_weight
        self.cls_criterion = sigmoid_focal_loss if focal else F.binary_cross_entropy_with_logits

    def forward(self, cls_score, label, weight=None):
        weight = torch.ones_like(label) if weight is None else weight
        return self.loss_weight * self.cls_criterion(cls_score, label, weight, reduction=self.reduction)


model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 20))
loss_func = ResampleLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
for epoch in range(2):
    inputs = torch.randn(4, 16)
    labels = (torch.rand(4, 20) > 0.8).float()
    optimizer.zero_grad()
    outputs = model(inputs)
    loss = loss_func(outputs, labels)
    loss.backward()
    optimizer.step()
