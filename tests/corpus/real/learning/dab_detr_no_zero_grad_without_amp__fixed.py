# source: https://github.com/IDEA-Research/DAB-DETR/issues/58
# expect: clean
"""
Train and eval functions used in main.py
"""
import argparse
import copy
import math
import sys
from typing import Iterable

import torch
import torch.nn as nn
import torch.nn.functional as F


class SetCriterion(nn.Module):
    """stands for DAB-DETR's SetCriterion: a class loss and a box loss, with their weights"""

    def __init__(self, num_classes, weight_dict):
        super().__init__()
        self.num_classes = num_classes
        self.weight_dict = weight_dict

    def forward(self, outputs, targets):
        labels = torch.stack([t["labels"] for t in targets])
        boxes = torch.stack([t["boxes"] for t in targets])
        loss_ce = F.cross_entropy(outputs["pred_logits"].transpose(1, 2), labels)
        loss_bbox = F.l1_loss(outputs["pred_boxes"], boxes)
        return {"loss_ce": loss_ce, "loss_bbox": loss_bbox, "class_error": torch.tensor(0.0)}


class DABDETR(nn.Module):
    """stands for the DAB-DETR model: queries read from a pooled backbone feature"""

    def __init__(self, num_classes=4, num_queries=3, hidden_dim=8):
        super().__init__()
        self.num_queries = num_queries
        self.backbone = nn.Conv2d(3, hidden_dim, 3, padding=1)
        self.class_embed = nn.Linear(hidden_dim, num_classes)
        self.bbox_embed = nn.Linear(hidden_dim, 4)
        self.query_embed = nn.Embedding(num_queries, hidden_dim)

    def forward(self, samples):
        src = self.backbone(samples).mean(dim=(2, 3))
        hs = src[:, None, :] + self.query_embed.weight[None]
        return {"pred_logits": self.class_embed(hs), "pred_boxes": self.bbox_embed(hs).sigmoid()}


def train_one_epoch(model: torch.nn.Module, criterion: torch.nn.Module,
                    data_loader: Iterable, optimizer: torch.optim.Optimizer,
                    device: torch.device, epoch: int, max_norm: float = 0,
                    wo_class_error=False, lr_scheduler=None, args=None, logger=None, ema_m=None):
    scaler = torch.cuda.amp.GradScaler(enabled=args.amp)

    try:
        need_tgt_for_training = args.use_dn
    except:
        need_tgt_for_training = False

    model.train()
    criterion.train()
    header = 'Epoch: [{}]'.format(epoch)

    _cnt = 0
    for samples, targets in data_loader:
        samples = samples.to(device)
        targets = [{k: v.to(device) for k, v in t.items()} for t in targets]

        with torch.autocast("cpu", enabled=args.amp):
            if need_tgt_for_training:
                outputs = model(samples, targets)
            else:
                outputs = model(samples)

            loss_dict = criterion(outputs, targets)
            weight_dict = criterion.weight_dict
            losses = sum(loss_dict[k] * weight_dict[k] for k in loss_dict.keys() if k in weight_dict)

        loss_value = losses.item()

        if not math.isfinite(loss_value):
            print("Loss is {}, stopping training".format(loss_value))
            sys.exit(1)

        # amp backward function
        if args.amp:
            optimizer.zero_grad()
            scaler.scale(losses).backward()
            if max_norm > 0:
                scaler.unscale_(optimizer)
                torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
            scaler.step(optimizer)
            scaler.update()
        else:
            # original backward function
            optimizer.zero_grad()
            losses.backward()
            if max_norm > 0:
                torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
            optimizer.step()

        _cnt += 1
        if args.debug:
            if _cnt % 15 == 0:
                print("BREAK!" * 5)
                break

    return {"loss": loss_value, "header": header}


def main(args):
    device = torch.device(args.device)
    model = DABDETR()
    criterion = SetCriterion(4, weight_dict={"loss_ce": 1, "loss_bbox": args.bbox_loss_coef})
    init = copy.deepcopy(model.state_dict())
    param_dicts = [
        {"params": [p for n, p in model.named_parameters() if "backbone" not in n and p.requires_grad]},
        {"params": [p for n, p in model.named_parameters() if "backbone" in n and p.requires_grad],
         "lr": args.lr_backbone},
    ]
    optimizer = torch.optim.AdamW(param_dicts, lr=args.lr, weight_decay=args.weight_decay)
    data_loader_train = [
        (torch.randn(2, 3, 8, 8), [{"labels": torch.randint(0, 4, (3,)), "boxes": torch.rand(3, 4)} for _ in range(2)])
        for _ in range(3)
    ]
    for epoch in range(args.start_epoch, args.epochs):
        train_one_epoch(model, criterion, data_loader_train, optimizer, device, epoch,
                        args.clip_max_norm, wo_class_error=False, args=args)
    return model, criterion, init, data_loader_train


if __name__ == "__main__":
    parser = argparse.ArgumentParser('DAB-DETR training and evaluation script')
    parser.add_argument('--lr', default=1e-4, type=float)
    parser.add_argument('--lr_backbone', default=1e-5, type=float)
    parser.add_argument('--weight_decay', default=1e-4, type=float)
    parser.add_argument('--epochs', default=1, type=int)
    parser.add_argument('--start_epoch', default=0, type=int)
    parser.add_argument('--clip_max_norm', default=0.1, type=float)
    parser.add_argument('--bbox_loss_coef', default=5, type=float)
    parser.add_argument('--amp', action='store_true')
    parser.add_argument('--debug', action='store_true')
    parser.add_argument('--device', default='cpu')
    args = parser.parse_args([])
    model, criterion, init, data_loader_train = main(args)

    reference = DABDETR()
    reference.load_state_dict(init)
    ref_opt = torch.optim.AdamW([
        {"params": [p for n, p in reference.named_parameters() if "backbone" not in n]},
        {"params": [p for n, p in reference.named_parameters() if "backbone" in n], "lr": args.lr_backbone},
    ], lr=args.lr, weight_decay=args.weight_decay)
    for samples, targets in data_loader_train:
        ref_opt.zero_grad()
        loss_dict = criterion(reference(samples), targets)
        sum(loss_dict[k] * criterion.weight_dict[k] for k in loss_dict if k in criterion.weight_dict).backward()
        torch.nn.utils.clip_grad_norm_(reference.parameters(), args.clip_max_norm)
        ref_opt.step()
    assert torch.allclose(model.class_embed.weight, reference.class_embed.weight)
