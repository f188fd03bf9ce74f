# source: https://github.com/Project-MONAI/research-contributions/issues/392
# expect: silent: train_epoch never clears the gradients: each optimizer.step() applies the sum of every earlier batch's gradient
# buggy-line: 63
import copy
import time

import torch
import torch.nn as nn


class AverageMeter(object):
    def __init__(self):
        self.reset()

    def reset(self):
        self.val = 0
        self.avg = 0
        self.sum = 0
        self.count = 0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count


class SwinUNETR(nn.Module):
    """stands for monai.networks.nets.SwinUNETR: a small 3D encoder / decoder"""

    def __init__(self, img_size, in_channels, out_channels, feature_size=4):
        super().__init__()
        self.encoder = nn.Conv3d(in_channels, feature_size, 3, padding=1)
        self.norm = nn.InstanceNorm3d(feature_size)
        self.decoder = nn.Conv3d(feature_size, out_channels, 1)

    def forward(self, x):
        return self.decoder(torch.relu(self.norm(self.encoder(x))))


def dice_ce(logits, target):
    """stands for monai.losses.DiceCELoss(to_onehot_y=True, softmax=True)"""
    return nn.functional.cross_entropy(logits, target[:, 0].long())


device = torch.device("cpu")
batch_size = 1
max_epochs = 1
model = SwinUNETR(img_size=(8, 8, 8), in_channels=1, out_channels=3, feature_size=4).to(device)
loss_func = dice_ce
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4, weight_decay=1e-5)
train_loader = [{"image": torch.randn(1, 1, 8, 8, 8), "label": torch.randint(0, 3, (1, 1, 8, 8, 8))} for _ in range(3)]


def train_epoch(model, loader, optimizer, epoch, loss_func):
    model.train()
    start_time = time.time()
    run_loss = AverageMeter()
    for idx, batch_data in enumerate(loader):
        data, target = batch_data["image"].to(device), batch_data["label"].to(device)
        logits = model(data)
        loss = loss_func(logits, target)
        loss.backward()
        optimizer.step()
        run_loss.update(loss.item(), n=batch_size)
        print(
            "Epoch {}/{} {}/{}".format(epoch, max_epochs, idx, len(loader)),
            "loss: {:.4f}".format(run_loss.avg),
            "time {:.2f}s".format(time.time() - start_time),
        )
        start_time = time.time()
    return run_loss.avg


init = copy.deepcopy(model.state_dict())
for epoch in range(max_epochs):
    train_loss = train_epoch(model, train_loader, optimizer, epoch=epoch, loss_func=loss_func)

reference = SwinUNETR(img_size=(8, 8, 8), in_channels=1, out_channels=3, feature_size=4)
reference.load_state_dict(init)
ref_opt = torch.optim.AdamW(reference.parameters(), lr=1e-4, weight_decay=1e-5)
for batch_data in train_loader:
    ref_opt.zero_grad()
    loss_func(reference(batch_data["image"]), batch_data["label"]).backward()
    ref_opt.step()
# the effect: the accumulated gradients move the weights elsewhere
assert not torch.allclose(model.decoder.weight, reference.decoder.weight)
