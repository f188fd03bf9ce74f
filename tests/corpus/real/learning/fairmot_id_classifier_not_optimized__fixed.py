# source: https://github.com/ifzhang/FairMOT/issues/125
# expect: clean
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class DLASeg(nn.Module):
    def __init__(self, heads, head_conv=16):
        super().__init__()
        self.base = nn.Sequential(nn.Conv2d(3, head_conv, 3, padding=1), nn.ReLU())
        self.heads = heads
        for head in self.heads:
            setattr(self, head, nn.Conv2d(head_conv, self.heads[head], kernel_size=1))

    def forward(self, x):
        y = self.base(x)
        z = {}
        for head in self.heads:
            z[head] = getattr(self, head)(y)
        return [z]


class MotLoss(nn.Module):
    def __init__(self, emb_dim=8, nID=20):
        super(MotLoss, self).__init__()
        self.emb_dim = emb_dim
        self.nID = nID
        self.classifier = nn.Linear(self.emb_dim, self.nID)
        self.IDLoss = nn.CrossEntropyLoss(ignore_index=-1)
        self.emb_scale = math.sqrt(2) * math.log(self.nID - 1)
        self.s_det = nn.Parameter(-1.85 * torch.ones(1))
        self.s_id = nn.Parameter(-1.05 * torch.ones(1))

    def forward(self, outputs, batch):
        output = outputs[0]
        hm_loss = F.mse_loss(output['hm'].sigmoid(), batch['hm'])
        id_head = output['id'].permute(0, 2, 3, 1).reshape(-1, self.emb_dim)
        id_head = self.emb_scale * F.normalize(id_head)
        id_target = batch['ids'].reshape(-1)
        id_output = self.classifier(id_head)
        id_loss = self.IDLoss(id_output, id_target)
        det_loss = hm_loss
        loss = torch.exp(-self.s_det) * det_loss + torch.exp(-self.s_id) * id_loss + (self.s_det + self.s_id)
        loss *= 0.5
        return loss


class BaseTrainer(object):
    def __init__(self, model, optimizer=None):
        self.optimizer = optimizer
        self.loss = MotLoss()
        self.optimizer.add_param_group({'params': self.loss.parameters()})
        self.model = model

    def run_epoch(self, data_loader):
        for batch in data_loader:
            outputs = self.model(batch['input'])
            loss = self.loss(outputs, batch)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()


model = DLASeg({'hm': 1, 'id': 8})
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
trainer = BaseTrainer(model, optimizer)
torch.manual_seed(0)
before = trainer.loss.classifier.weight.detach().clone()
data = [
    {'input': torch.randn(2, 3, 4, 4), 'hm': torch.rand(2, 1, 4, 4), 'ids': torch.randint(0, 20, (2, 4, 4))}
    for _ in range(3)
]
trainer.run_epoch(data)
assert not torch.equal(trainer.loss.classifier.weight, before)
