# source: https://github.com/AaronComo/LipFD/issues/18
# expect: clean
import argparse
import os

import torch
import torch.nn as nn


class LipFD(nn.Module):
    def __init__(self, num_classes=1):
        super().__init__()
        self.encoder = nn.Sequential(nn.Conv2d(3, 8, 3, stride=2, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.region = nn.Linear(3 * 4 * 4, 8)
        self.fc = nn.Linear(16, num_classes)

    def get_features(self, x):
        return self.encoder(x)

    def forward(self, crops, features):
        weights_org = torch.stack([self.region(c.flatten(1)) for c in crops[0]], dim=1)
        weights_max = weights_org.max(dim=1).values
        return self.fc(torch.cat([features, weights_max], dim=1)), weights_max, weights_org.mean(dim=1)


def build_model(arch):
    return LipFD()


class RALoss(nn.Module):
    def forward(self, weights_max, weights_org):
        return (weights_max - weights_org).abs().mean()


def get_loss():
    return RALoss()


class Trainer(nn.Module):
    def __init__(self, opt):
        super().__init__()
        self.opt = opt
        self.total_steps = 0
        self.save_dir = os.path.join(opt.checkpoints_dir, opt.name)
        self.device = torch.device("cuda:{}".format(opt.gpu_ids[0])) if opt.gpu_ids else torch.device("cpu")
        self.opt = opt
        self.model = build_model(opt.arch)
        self.step_bias = 0 if not opt.fine_tune else int(opt.pretrained_model.split("_")[-1].split(".")[0]) + 1
        if opt.fine_tune:
            state_dict = torch.load(opt.pretrained_model, map_location="cpu")
            self.model.load_state_dict(state_dict["model"])
            self.total_steps = state_dict["total_steps"]
            print(f"Model loaded @ {opt.pretrained_model.split('/')[-1]}")

        if opt.fix_encoder:
            params = []
            for name, p in self.model.named_parameters():
                if name.split(".")[0] in ["encoder"]:
                    p.requires_grad = False
                else:
                    p.requires_grad = True
            params = self.model.parameters()

        if opt.optim == "adam":
            self.optimizer = torch.optim.AdamW(params, lr=opt.lr, betas=(opt.beta1, 0.999), weight_decay=opt.weight_decay)
        elif opt.optim == "sgd":
            self.optimizer = torch.optim.SGD(params, lr=opt.lr, momentum=0.0, weight_decay=opt.weight_decay)
        else:
            raise ValueError("optim should be [adam, sgd]")

        self.criterion = get_loss().to(self.device)
        self.criterion1 = nn.BCEWithLogitsLoss()
        self.model.to(opt.gpu_ids[0] if torch.cuda.is_available() else "cpu")

    def set_input(self, input):
        self.input = input[0].to(self.device)
        self.crops = [[t.to(self.device) for t in sublist] for sublist in input[1]]
        self.label = input[2].to(self.device).float()

    def forward(self):
        self.get_features()
        self.output, self.weights_max, self.weights_org = self.model.forward(self.crops, self.features)
        self.output = self.output.view(-1)
        self.loss = self.criterion(self.weights_max, self.weights_org) + self.criterion1(self.output, self.label)

    def get_loss(self):
        loss = self.loss.data.tolist()
        return loss[0] if isinstance(loss, type(list())) else loss

    def optimize_parameters(self):
        self.optimizer.zero_grad()
        self.loss.backward()
        self.optimizer.step()

    def get_features(self):
        self.features = self.model.get_features(self.input).to(self.device)


opt = argparse.Namespace(
    checkpoints_dir="./checkpoints", name="ckpt", gpu_ids=[], arch="CLIP:ViT-L/14", fine_tune=False,
    pretrained_model="", fix_encoder=True, optim="adam", lr=2e-9, beta1=0.9, weight_decay=0.0,
)
model = Trainer(opt)
data = [(torch.randn(2, 3, 8, 8), [[torch.randn(2, 3, 4, 4) for _ in range(3)]], torch.tensor([0, 1])) for _ in range(2)]
for i, batch in enumerate(data):
    model.total_steps += 1
    model.set_input(batch)
    model.forward()
    model.optimize_parameters()
