# source: https://github.com/RangiLyu/nanodet/issues/7
# expect: element 0 of tensors does not require grad
# buggy-line: 56
# also-line: 82
import torch
import torch.nn as nn
import torch.nn.functional as F


def multi_apply(func, *args, **kwargs):
    map_results = map(lambda *a: func(*a, **kwargs), *args)
    return tuple(map(list, zip(*map_results)))


class GFLHead(nn.Module):
    def __init__(self, num_classes, in_channels, strides=(8, 16), reg_max=7):
        super(GFLHead, self).__init__()
        self.num_classes = num_classes
        self.strides = strides
        self.reg_max = reg_max
        self.gfl_cls = nn.Conv2d(in_channels, num_classes, 3, padding=1)
        self.gfl_reg = nn.Conv2d(in_channels, 4 * (reg_max + 1), 3, padding=1)

    def forward(self, feats):
        return [self.gfl_cls(x) for x in feats], [self.gfl_reg(x) for x in feats]

    def loss_single(self, cls_score, bbox_pred, labels, stride, num_total_samples):
        cls_score = cls_score.permute(0, 2, 3, 1).reshape(-1, self.num_classes)
        bbox_pred = bbox_pred.permute(0, 2, 3, 1).reshape(-1, 4 * (self.reg_max + 1))
        labels = labels.reshape(-1)
        bg_class_ind = self.num_classes
        pos_inds = torch.nonzero((labels >= 0) & (labels < bg_class_ind), as_tuple=False).squeeze(1)
        if len(pos_inds) > 0:
            weight_targets = cls_score.detach().sigmoid().max(dim=1)[0][pos_inds]
            pred_corners = bbox_pred[pos_inds].reshape(-1, self.reg_max + 1)
            loss_bbox = (pred_corners.softmax(-1).sum(-1) * weight_targets.repeat_interleave(4)).mean()
            loss_dfl = F.cross_entropy(pred_corners, torch.zeros(len(pred_corners), dtype=torch.long))
        else:
            loss_bbox = bbox_pred.sum() * 0
            loss_dfl = bbox_pred.sum() * 0
            weight_targets = torch.tensor(0)
        target = F.one_hot(labels.clamp(max=self.num_classes - 1), self.num_classes).float()
        target[labels == bg_class_ind] = 0
        loss_qfl = F.binary_cross_entropy_with_logits(cls_score, target, reduction="sum") / num_total_samples
        return loss_qfl, loss_bbox, loss_dfl, weight_targets.sum()

    def loss(self, preds, gt_labels):
        cls_scores, bbox_preds = preds
        num_total_pos = max(sum(int((labels < self.num_classes).sum()) for labels in gt_labels), 1)
        losses_qfl, losses_bbox, losses_dfl, avg_factor = multi_apply(
            self.loss_single, cls_scores, bbox_preds, gt_labels, self.strides, num_total_samples=num_total_pos
        )
        avg_factor = sum(avg_factor)
        avg_factor = avg_factor.item()
        if avg_factor <= 0:
            loss_qfl = torch.tensor(0, dtype=torch.float32)
            loss_bbox = torch.tensor(0, dtype=torch.float32)
            loss_dfl = torch.tensor(0, dtype=torch.float32)
        else:
            losses_bbox = list(map(lambda x: x / avg_factor, losses_bbox))
            losses_dfl = list(map(lambda x: x / avg_factor, losses_dfl))
            loss_qfl = sum(losses_qfl)
            loss_bbox = sum(losses_bbox)
            loss_dfl = sum(losses_dfl)
        loss = loss_qfl + loss_bbox + loss_dfl
        loss_states = dict(loss_qfl=loss_qfl, loss_bbox=loss_bbox, loss_dfl=loss_dfl)
        return loss, loss_states


class Trainer:
    def __init__(self, model, head, optimizer):
        self.model = model
        self.head = head
        self.optimizer = optimizer

    def run_step(self, model, batch, mode="train"):
        feats = model(batch["img"])
        preds = self.head([feats, F.avg_pool2d(feats, 2)])
        loss, loss_stats = self.head.loss(preds, batch["gt_labels"])
        if mode == "train":
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
        return preds, loss, loss_stats

    def warm_up(self, data_loader):
        for i, batch in enumerate(data_loader):
            output, loss, loss_stats = self.run_step(self.model, batch)


backbone = nn.Sequential(nn.Conv2d(3, 8, 3, stride=8, padding=1), nn.ReLU())
head = GFLHead(num_classes=2, in_channels=8)
optimizer = torch.optim.SGD(list(backbone.parameters()) + list(head.parameters()), lr=0.01)
trainer = Trainer(backbone, head, optimizer)
# warm-up batches: the second has no object in either image, so no cell is positive
batches = [
    {"img": torch.randn(2, 3, 32, 32), "gt_labels": [torch.full((2, 4, 4), 2).index_fill(2, torch.tensor([1]), 0), torch.full((2, 2, 2), 2)]},
    {"img": torch.randn(2, 3, 32, 32), "gt_labels": [torch.full((2, 4, 4), 2), torch.full((2, 2, 2), 2)]},
]
trainer.warm_up(batches)
