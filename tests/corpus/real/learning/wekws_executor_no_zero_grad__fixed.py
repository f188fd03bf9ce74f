# source: https://github.com/wenet-e2e/wekws/pull/73
# expect: clean
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils import clip_grad_norm_


def max_pooling_loss(logits, target, lengths, min_duration=0):
    probs = logits.sigmoid().max(dim=1).values
    loss = F.binary_cross_entropy(probs[:, 0], target.float())
    acc = ((probs[:, 0] > 0.5).long() == target).float().mean()
    return loss, acc


def criterion(type, logits, target, lengths, min_duration=0):
    if type == "ce":
        loss = F.cross_entropy(logits.mean(dim=1), target)
        return loss, (logits.mean(dim=1).argmax(-1) == target).float().mean()
    elif type == "max_pooling":
        return max_pooling_loss(logits, target, lengths, min_duration)
    else:
        exit(1)


class KWSModel(nn.Module):
    def __init__(self, idim, odim):
        super().__init__()
        self.backbone = nn.GRU(idim, 8, batch_first=True)
        self.classifier = nn.Linear(8, odim)

    def forward(self, x):
        x, _ = self.backbone(x)
        return self.classifier(x)


class Executor:
    def __init__(self):
        self.step = 0

    def train(self, model, optimizer, data_loader, device, writer, args):
        """Train one epoch"""
        model.train()
        clip = args.get("grad_clip", 50.0)
        log_interval = args.get("log_interval", 10)
        epoch = args.get("epoch", 0)
        min_duration = args.get("min_duration", 0)

        for batch_idx, batch in enumerate(data_loader):
            key, feats, target, feats_lengths = batch
            feats = feats.to(device)
            target = target.to(device)
            feats_lengths = feats_lengths.to(device)
            if target.size(0) == 0:
                continue
            logits = model(feats)
            loss_type = args.get("criterion", "max_pooling")
            loss, acc = criterion(loss_type, logits, target, feats_lengths, min_duration)
            optimizer.zero_grad()
            loss.backward()
            grad_norm = clip_grad_norm_(model.parameters(), clip)
            if torch.isfinite(grad_norm):
                optimizer.step()
            if batch_idx % log_interval == 0:
                self.step += 1


torch.manual_seed(0)
model = KWSModel(5, 1)
init_state = copy.deepcopy(model.state_dict())
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
args = {"grad_clip": 5.0, "log_interval": 1, "epoch": 0, "criterion": "max_pooling"}
data = [(["utt"], torch.randn(2, 6, 5), torch.tensor([0, 1]), torch.tensor([6, 6])) for _ in range(3)]
Executor().train(model, optimizer, data, torch.device("cpu"), None, args)

