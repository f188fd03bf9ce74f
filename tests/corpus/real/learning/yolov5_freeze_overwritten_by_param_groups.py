# source: https://github.com/ultralytics/yolov5/issues/1213
# expect: silent: the layers named in `freeze` get requires_grad = False, then the loop that builds the optimizer's parameter groups sets requires_grad = True on every parameter, so the frozen layers are trained anyway
# buggy-line: 68
# also-line: 59
# mechanism: a later loop over the same parameters undoes the freeze before the optimizer is built
import argparse
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
import torch.optim.lr_scheduler as lr_scheduler


class Conv(nn.Module):
    # Standard convolution
    def __init__(self, c1, c2, k=1, s=1):  # ch_in, ch_out, kernel, stride
        super(Conv, self).__init__()
        self.conv = nn.Conv2d(c1, c2, k, s, k // 2, bias=False)
        self.bn = nn.BatchNorm2d(c2)
        self.act = nn.LeakyReLU(0.1)

    def forward(self, x):
        return self.act(self.bn(self.conv(x)))


class Model(nn.Module):
    """stands for models/yolo.py's Model built from yolov5s.yaml: self.model is the layer list"""

    def __init__(self, ch=3, nc=2):
        super().__init__()
        self.model = nn.Sequential(
            Conv(ch, 8, 3, 2),
            Conv(8, 16, 3, 2),
            nn.Conv2d(16, nc + 5, 1),
        )

    def forward(self, x):
        return self.model(x)


def compute_loss(p, targets, model):
    # stands for utils.general.compute_loss
    return F.mse_loss(p.mean((2, 3)), targets)


def train(hyp, opt, device):
    epochs, batch_size, total_batch_size = opt.epochs, opt.batch_size, opt.total_batch_size
    nc = 2
    model = Model(ch=3, nc=nc).to(device)  # create

    # Freeze
    freeze = ['model.0.', ]  # parameter names to freeze (full or partial)
    if any(freeze):
        for k, v in model.named_parameters():
            if any(x in k for x in freeze):
                print('freezing %s' % k)
                v.requires_grad = False

    # Optimizer
    nbs = 64  # nominal batch size
    accumulate = max(round(nbs / total_batch_size), 1)  # accumulate loss before optimizing
    hyp['weight_decay'] *= total_batch_size * accumulate / nbs  # scale weight_decay

    pg0, pg1, pg2 = [], [], []  # optimizer parameter groups
    for k, v in model.named_parameters():
        v.requires_grad = True
        if '.bias' in k:
            pg2.append(v)  # biases
        elif '.weight' in k and '.bn' not in k:
            pg1.append(v)  # apply weight decay
        else:
            pg0.append(v)  # all else

    if opt.adam:
        optimizer = optim.Adam(pg0, lr=hyp['lr0'], betas=(hyp['momentum'], 0.999))  # adjust beta1 to momentum
    else:
        optimizer = optim.SGD(pg0, lr=hyp['lr0'], momentum=hyp['momentum'], nesterov=True)

    optimizer.add_param_group({'params': pg1, 'weight_decay': hyp['weight_decay']})  # add pg1 with weight_decay
    optimizer.add_param_group({'params': pg2})  # add pg2 (biases)
    print('Optimizer groups: %g .bias, %g conv.weight, %g other' % (len(pg2), len(pg1), len(pg0)))
    del pg0, pg1, pg2

    lf = lambda x: ((1 + math.cos(x * math.pi / epochs)) / 2) * (1 - hyp['lrf']) + hyp['lrf']  # cosine
    scheduler = lr_scheduler.LambdaLR(optimizer, lr_lambda=lf)

    # stands for create_dataloader
    dataloader = [(torch.randn(batch_size, 3, 32, 32), torch.rand(batch_size, nc + 5)) for _ in range(4)]

    for epoch in range(epochs):
        model.train()
        optimizer.zero_grad()
        for i, (imgs, targets) in enumerate(dataloader):
            imgs = imgs.to(device, non_blocking=True).float()
            pred = model(imgs)
            loss = compute_loss(pred, targets.to(device), model)
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
        scheduler.step()
    return model


if __name__ == '__main__':
    parser = argparse.ArgumentParser()
    parser.add_argument('--epochs', type=int, default=2)
    parser.add_argument('--batch-size', type=int, default=4, help='total batch size for all GPUs')
    parser.add_argument('--adam', action='store_true', help='use torch.optim.Adam() optimizer')
    opt = parser.parse_args([])
    opt.total_batch_size = opt.batch_size
    hyp = {'lr0': 0.01, 'lrf': 0.2, 'momentum': 0.937, 'weight_decay': 0.0005}
    torch.manual_seed(0)
    model = train(hyp, opt, torch.device('cpu'))
    torch.manual_seed(0)
    initial = Model(ch=3, nc=2)
    # the effect: the layer named in `freeze` was trained
    assert not torch.equal(model.model[0].conv.weight, initial.model[0].conv.weight)
