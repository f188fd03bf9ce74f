# source: https://github.com/ultralytics/ultralytics/pull/11217
# expect: silent: the zero_grad at the start of each epoch throws away the gradients of the last batches of the previous epoch, accumulated but not yet stepped
# buggy-line: 59
import math

import torch
import torch.nn as nn


class DetectionModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.SiLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(4, 2))

    def forward(self, batch):
        preds = self.net(batch["img"])
        loss = (preds - batch["cls"]).pow(2).sum()
        return loss, loss.detach()


class InfiniteDataLoader:
    """yields fresh batch dicts each epoch, as a DataLoader does"""

    def __init__(self, batches):
        self.batches = batches

    def __len__(self):
        return len(self.batches)

    def __iter__(self):
        return iter([dict(b) for b in self.batches])


class BaseTrainer:
    def __init__(self, model, train_loader, epochs=2, nbs=4, batch_size=2):
        self.model = model
        self.train_loader = train_loader
        self.epochs = epochs
        self.start_epoch = 0
        self.amp = False
        self.accumulate = max(round(nbs / batch_size), 1)
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.0, momentum=0.0)
        self.scaler = torch.amp.GradScaler("cpu", enabled=self.amp)
        self.ema = None
        self.stepped_grads = []

    def preprocess_batch(self, batch):
        batch["img"] = batch["img"].float() / 255
        return batch

    def _do_train(self):
        nb = len(self.train_loader)
        last_opt_step = -1
        for epoch in range(self.start_epoch, self.epochs):
            self.epoch = epoch
            self.model.train()
            pbar = enumerate(self.train_loader)
            self.tloss = None
            self.optimizer.zero_grad()
            for i, batch in pbar:
                ni = i + nb * epoch
                # Forward
                with torch.autocast("cpu", enabled=self.amp):
                    batch = self.preprocess_batch(batch)
                    self.loss, self.loss_items = self.model(batch)
                    self.tloss = (self.tloss * i + self.loss_items) / (i + 1) if self.tloss is not None else self.loss_items
                # Backward
                self.scaler.scale(self.loss).backward()
                # Optimize - https://pytorch.org/docs/master/notes/amp_examples.html
                if ni - last_opt_step >= self.accumulate:
                    self.optimizer_step()
                    last_opt_step = ni

    def optimizer_step(self):
        self.scaler.unscale_(self.optimizer)  # unscale gradients
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), max_norm=10.0)  # clip gradients
        self.stepped_grads.append(self.model.net[-1].bias.grad.clone())
        self.scaler.step(self.optimizer)
        self.scaler.update()
        self.optimizer.zero_grad()
        if self.ema:
            self.ema.update(self.model)


torch.manual_seed(0)
loader = [{"img": torch.randint(0, 255, (2, 3, 8, 8)), "cls": torch.ones(2, 2) * 0.1 * k} for k in range(3)]
model = DetectionModel()
trainer = BaseTrainer(model, InfiniteDataLoader(loader), epochs=2, nbs=4, batch_size=2)
trainer._do_train()
# the effect (lr=0 keeps the weights, so each batch's gradient is fixed): the step at ni=3
# applies batch 0 of epoch 1 alone, the backward of ni=2 (the last batch of epoch 0) is lost


def grad_of(batch):
    model.zero_grad()
    model({"img": batch["img"].float() / 255, "cls": batch["cls"]})[0].backward()
    return model.net[-1].bias.grad.clone()


assert torch.allclose(trainer.stepped_grads[1], grad_of(loader[0]))
