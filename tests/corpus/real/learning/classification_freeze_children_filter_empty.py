# source: https://github.com/lxztju/pytorch_classification/issues/13
# expect: optimizer got an empty parameter list
# buggy-line: 46
# also-line: 54
import os

import torch
import torch.nn as nn
import torch.optim as optim


class SmallNet(nn.Module):
    """stands for the backbone cfg.MODEL_NAMES picks (its children: stem, blocks, head)"""

    def __init__(self, num_classes=1000):
        super().__init__()
        self.stem = nn.Conv2d(3, 8, 3, stride=2, padding=1)
        self.blocks = nn.Sequential(nn.ReLU(), nn.Conv2d(8, 8, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.fc = nn.Linear(8, num_classes)

    def forward(self, x):
        return self.fc(self.blocks(self.stem(x)))


class cfg:
    SAVE_FOLDER = "./weights/"
    model_name = "resnext101_32x32d"
    MODEL_NAMES = {"resnext101_32x32d": SmallNet}
    NUM_CLASSES = 4
    RESUME_EPOCH = 0
    GPUS = 1
    LR = 1e-3


#####build the network model
if not cfg.RESUME_EPOCH:
    print("****** Training {} ****** ".format(cfg.model_name))
    if not cfg.model_name.startswith("efficientnet"):
        model = cfg.MODEL_NAMES[cfg.model_name](num_classes=cfg.NUM_CLASSES)
        # #冻结前边一部分层不训练
        ct = 0
        for child in model.children():
            ct += 1
            if ct < 8:
                for param in child.parameters():
                    param.requires_grad = False

if cfg.GPUS > 1:
    model = nn.DataParallel(model, device_ids=list(range(cfg.GPUS)))
if torch.cuda.is_available():
    model.cuda()

##定义优化器与损失函数
optimizer = optim.Adam(filter(lambda p: p.requires_grad, model.parameters()), lr=cfg.LR)
criterion = nn.CrossEntropyLoss()
