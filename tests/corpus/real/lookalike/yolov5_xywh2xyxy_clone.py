# source: https://github.com/ultralytics/yolov5/blob/master/utils/general.py
# expect: clean
# note: clone-then-edit: `y = x.clone()` then column assignments computed from `x`, on boxes that require grad inside a loss
import torch
import torch.nn as nn


def xywh2xyxy(x):
    y = x.clone()
    y[..., 0] = x[..., 0] - x[..., 2] / 2
    y[..., 1] = x[..., 1] - x[..., 3] / 2
    y[..., 2] = x[..., 0] + x[..., 2] / 2
    y[..., 3] = x[..., 1] + x[..., 3] / 2
    return y


def box_l1_loss(pred_xywh, target_xyxy):
    return (xywh2xyxy(pred_xywh) - target_xyxy).abs().mean()


head = nn.Linear(6, 4)
optimizer = torch.optim.SGD(head.parameters(), lr=0.01, momentum=0.937)
feats = torch.randn(5, 6)
targets = torch.rand(5, 4)
for _ in range(2):
    optimizer.zero_grad()
    pred = head(feats).sigmoid()
    loss = box_l1_loss(pred, targets)
    loss.backward()
    optimizer.step()
