# source: https://github.com/constantinpape/torch-em/pull/57
# expect: can't retain_grad on Tensor that has requires_grad=False
# buggy-line: 54
# also-line: 95
# mechanism: a helper shared by training and validation calls retain_grad() on the prediction; validation runs it under torch.no_grad()
import time
from contextlib import nullcontext

import torch
import torch.nn as nn


class DiceLoss(nn.Module):
    def __init__(self, eps=1e-7):
        super().__init__()
        self.eps = eps

    def forward(self, input_, target):
        numerator = (input_ * target).sum()
        denominator = (input_ * input_).sum() + (target * target).sum()
        return 1.0 - 2 * numerator / denominator.clamp(min=self.eps)


class DefaultTrainer:
    """ Trainer class for 2d/3d training on a single GPU.
    """
    def __init__(self, name, train_loader, val_loader, model, loss, optimizer, metric, device, mixed_precision=False, log_image_interval=100):
        self.name = name
        self.train_loader = train_loader
        self.val_loader = val_loader
        self.model = model
        self.loss = loss
        self.optimizer = optimizer
        self.metric = metric
        self.device = device
        self.mixed_precision = mixed_precision
        self.log_image_interval = log_image_interval
        self._iteration = 0
        self._epoch = 0

    def fit(self, iterations):
        best_metric = float("inf")
        train_epochs = max(1, iterations // len(self.train_loader))
        for _ in range(train_epochs):
            t_per_iter = self._train_epoch()
            current_metric = self._validate()
            if current_metric < best_metric:
                best_metric = current_metric
            self._epoch += 1
        return best_metric

    def _forward_and_loss(self, x, y):
        pred = self.model(x)
        pred.retain_grad()
        loss = self.loss(pred, y)
        return pred, loss

    def _train_epoch(self):
        return self._train_epoch_impl(nullcontext)

    def _validate(self):
        return self._validate_impl(nullcontext)

    def _train_epoch_impl(self, forward_context):
        self.model.train()
        t_per_iter = time.time()
        for x, y in self.train_loader:
            x, y = x.to(self.device), y.to(self.device)

            self.optimizer.zero_grad()

            with forward_context():
                pred, loss = self._forward_and_loss(x, y)

            loss.backward()
            self.optimizer.step()

            if self._iteration % self.log_image_interval == 0:
                grad_norm = pred.grad.norm().item()
            self._iteration += 1

        t_per_iter = (time.time() - t_per_iter) / len(self.train_loader)
        return t_per_iter

    def _validate_impl(self, forward_context):
        self.model.eval()

        metric_val = 0.0
        loss_val = 0.0

        with torch.no_grad():
            for x, y in self.val_loader:
                x, y = x.to(self.device), y.to(self.device)
                with forward_context():
                    pred, loss = self._forward_and_loss(x, y)
                    metric = self.metric(pred, y)

                loss_val += loss.item()
                metric_val += metric.item()

        metric_val /= len(self.val_loader)
        loss_val /= len(self.val_loader)
        return metric_val


model = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.Conv2d(4, 1, 1), nn.Sigmoid())
loader = [(torch.rand(2, 1, 16, 16), (torch.rand(2, 1, 16, 16) > 0.5).float()) for _ in range(2)]
optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)

trainer = DefaultTrainer(
    name='test',
    train_loader=loader,
    val_loader=loader,
    model=model,
    loss=DiceLoss(),
    optimizer=optimizer,
    metric=DiceLoss(),
    device=torch.device("cpu"),
    mixed_precision=False,
    log_image_interval=20
)
trainer.fit(2)
