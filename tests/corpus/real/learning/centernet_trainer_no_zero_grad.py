# source: https://github.com/xingyizhou/CenterNet/issues/928
# expect: silent: the reorganised trainer never clears the gradients: from the second batch on every step applies the sum of all earlier gradients
# buggy-line: 53
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F


class CtdetLoss(torch.nn.Module):
    def __init__(self, opt):
        super(CtdetLoss, self).__init__()
        self.opt = opt

    def forward(self, outputs, batch):
        output = outputs[-1]
        hm_loss = F.mse_loss(output["hm"].sigmoid(), batch["hm"])
        wh_loss = F.l1_loss(output["wh"], batch["wh"])
        loss = self.opt["hm_weight"] * hm_loss + self.opt["wh_weight"] * wh_loss
        return loss, {"loss": loss, "hm_loss": hm_loss, "wh_loss": wh_loss}


class ModleWithLoss(torch.nn.Module):
    def __init__(self, model, loss):
        super(ModleWithLoss, self).__init__()
        self.model = model
        self.loss = loss

    def forward(self, batch):
        outputs = self.model(batch["input"])
        loss, loss_stats = self.loss(outputs, batch)
        return outputs[-1], loss, loss_stats


class BaseTrainer(object):
    def __init__(self, opt, model, optimizer=None):
        self.opt = opt
        self.optimizer = optimizer
        self.loss = CtdetLoss(opt)
        self.model_with_loss = ModleWithLoss(model, self.loss)

    def run_epoch(self, phase, epoch, data_loader):
        model_with_loss = self.model_with_loss
        if phase == "train":
            model_with_loss.train()
        else:
            model_with_loss.eval()
        for iter_id, batch in enumerate(data_loader):
            output, loss, loss_stats = model_with_loss(batch)
            loss = loss.mean()
            if phase == "train":
                loss.backward()
                self.optimizer.step()
        return loss_stats

    def train(self, epoch, data_loader):
        return self.run_epoch("train", epoch, data_loader)


class TinyCenterNet(nn.Module):
    def __init__(self, heads):
        super(TinyCenterNet, self).__init__()
        self.base = nn.Conv2d(3, 4, 3, padding=1)
        for head, classes in heads.items():
            self.__setattr__(head, nn.Conv2d(4, classes, 1))
        self.heads = heads

    def forward(self, x):
        x = torch.relu(self.base(x))
        return [{head: self.__getattr__(head)(x) for head in self.heads}]


torch.manual_seed(0)
opt = {"hm_weight": 1.0, "wh_weight": 0.1, "lr": 0.1}
model = TinyCenterNet({"hm": 2, "wh": 2})
init_state = copy.deepcopy(model.state_dict())
optimizer = torch.optim.SGD(model.parameters(), opt["lr"])
trainer = BaseTrainer(opt, model, optimizer)
loader = [
    {"input": torch.randn(2, 3, 6, 6), "hm": torch.rand(2, 2, 6, 6), "wh": torch.randn(2, 2, 6, 6)}
    for _ in range(3)
]
trainer.train(1, loader)

# the effect: clearing the gradient before each backward gives other weights
reference = TinyCenterNet({"hm": 2, "wh": 2})
reference.load_state_dict(init_state)
ref_opt = torch.optim.SGD(reference.parameters(), opt["lr"])
ref_with_loss = ModleWithLoss(reference, CtdetLoss(opt))
for batch in loader:
    ref_opt.zero_grad()
    ref_with_loss(batch)[1].mean().backward()
    ref_opt.step()
assert not torch.allclose(model.base.weight, reference.base.weight)
