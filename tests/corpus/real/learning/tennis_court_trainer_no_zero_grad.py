# source: https://github.com/yastrebksv/TennisCourtDetector/issues/7
# expect: silent: base_trainer.train never clears the gradients: each optimizer.step() applies the sum of every earlier batch's gradient
# buggy-line: 20
import copy

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


def train(model, train_loader, optimizer, criterion, device, epoch, max_iters=1000):
    model.train()
    losses = []
    max_iters = min(max_iters, len(train_loader))
    for iter_id, batch in enumerate(train_loader):
        out = model(batch[0].float().to(device))
        gt_hm_hp = batch[1].float().to(device)
        loss = criterion(F.sigmoid(out), gt_hm_hp)
        loss.backward()
        optimizer.step()
        print("train, epoch = {}, iter_id = {}/{}, loss = {}".format(epoch, iter_id, max_iters, loss.item()))
        losses.append(loss.item())
        if iter_id > max_iters:
            break
    return np.mean(losses)


class BallTrackerNet(nn.Module):
    def __init__(self, out_channels=15):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.head = nn.Conv2d(8, out_channels, 1)

    def forward(self, x):
        return self.head(F.relu(self.conv(x)))


if __name__ == "__main__":
    torch.manual_seed(0)
    device = "cpu"
    model = BallTrackerNet(out_channels=15).to(device)
    init = copy.deepcopy(model.state_dict())
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3, betas=(0.9, 0.999), weight_decay=0)
    criterion = nn.MSELoss()
    train_loader = [(torch.rand(2, 3, 8, 8), torch.rand(2, 15, 8, 8)) for _ in range(3)]
    train(model, train_loader, optimizer, criterion, device, epoch=0)

    reference = BallTrackerNet(out_channels=15)
    reference.load_state_dict(init)
    ref_opt = torch.optim.Adam(reference.parameters(), lr=1e-3)
    for images, heatmaps in train_loader:
        ref_opt.zero_grad()
        criterion(F.sigmoid(reference(images)), heatmaps).backward()
        ref_opt.step()
    # the effect: the accumulated gradients move the weights elsewhere
    assert not torch.allclose(model.head.weight, reference.head.weight)
