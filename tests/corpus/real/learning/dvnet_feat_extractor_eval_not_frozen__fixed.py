# source: https://github.com/alexrich021/3dvnet/issues/11
# expect: clean
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


class LightningModule(nn.Module):
    """stands for pytorch_lightning.LightningModule: hparams and log"""

    def save_hyperparameters(self):
        self.hparams = argparse.Namespace(**{k: getattr(self, k) for k in self._hparam_names})

    def log(self, name, value, **kwargs):
        pass


def freeze_batchnorm(m):
    if isinstance(m, nn.BatchNorm2d):
        m.eval()


class FeatureExtractor(torch.nn.Module):
    """stands for the MnasNet layers taken from torchvision"""

    def __init__(self):
        super(FeatureExtractor, self).__init__()
        self.layer1 = torch.nn.Sequential(nn.Conv2d(3, 8, 3, 2, 1), nn.BatchNorm2d(8), nn.ReLU())
        self.layer2 = torch.nn.Sequential(nn.Conv2d(8, 16, 3, 2, 1), nn.BatchNorm2d(16), nn.ReLU())

    def forward(self, image):
        layer1 = self.layer1(image)
        layer2 = self.layer2(layer1)
        return layer1, layer2

    def train(self, mode=True):
        """
        Override the default train() to freeze the BN parameters
        """
        super(FeatureExtractor, self).train(mode)
        self.apply(freeze_batchnorm)
        return self


class FeatureShrinker(torch.nn.Module):
    def __init__(self, feat_dim):
        super(FeatureShrinker, self).__init__()
        self.inner1 = nn.Conv2d(8, feat_dim, 1)
        self.inner2 = nn.Conv2d(16, feat_dim, 1)

    def forward(self, layer1, layer2):
        top = self.inner2(layer2)
        half = self.inner1(layer1) + F.interpolate(top, size=layer1.shape[-2:], mode='nearest')
        return half, top


class MVSNet(nn.Module):
    def __init__(self, feat_dim=32, img_size=(240, 320)):
        super(MVSNet, self).__init__()
        self.feat_dim = feat_dim
        self.img_size = img_size

        self.feat_extractor = FeatureExtractor()
        self.feat_shrinker = FeatureShrinker(feat_dim)
        self.depth_head = nn.Conv2d(feat_dim, 1, 3, 1, 1)

    def forward(self, images):
        features_half, features_quarter = self.feat_shrinker(*self.feat_extractor(images))
        return self.depth_head(features_half).squeeze(1), features_half, features_quarter


class MAELoss(nn.Module):
    def forward(self, pred, gt, depth_interval):
        return torch.mean(torch.abs(pred - gt)) / depth_interval


class PL3DVNet(LightningModule):
    """
    Pytorch Lightning implementation of 3DVNet
    """
    _hparam_names = ('depth_train', 'depth_test', 'feat_dim', 'img_size', 'lr', 'lr_step', 'lr_gamma', 'finetune')

    def __init__(self, depth_train, depth_test, feat_dim=16, img_size=(256, 320),
                 lr=1e-3, lr_step=100, lr_gamma=0.1, finetune=False):
        super().__init__()
        # hparams
        self.depth_train = depth_train
        self.depth_test = depth_test
        self.feat_dim = feat_dim
        self.img_size = img_size
        self.lr = lr
        self.lr_step = lr_step
        self.lr_gamma = lr_gamma
        self.finetune = finetune
        self.save_hyperparameters()

        # networks
        self.mvsnet = MVSNet(self.hparams.feat_dim, self.hparams.img_size)
        self.refine_half = nn.Conv2d(self.hparams.feat_dim + 1, 1, 3, 1, 1)

        # losses
        self.mae_loss = MAELoss()

    def forward(self, batch, offsets, n_iters):
        depth_pred, feats_half, feats_quarter = self.mvsnet(batch['images'])
        depth_gt_sm = F.interpolate(batch['depth_images'].unsqueeze(1), depth_pred.shape[-2:], mode='nearest').squeeze(1)
        loss = self.mae_loss(depth_pred, depth_gt_sm, self.hparams.depth_test['depth_interval'])
        for _ in range(n_iters):
            depth_pred = depth_pred + self.refine_half(torch.cat([feats_half, depth_pred.unsqueeze(1)], 1)).squeeze(1)
            loss = loss + self.mae_loss(depth_pred, depth_gt_sm, self.hparams.depth_test['depth_interval'])
        return {'loss': loss}

    def training_step(self, batch, batch_idx):
        if not self.hparams.finetune:
            self.mvsnet.feat_extractor.eval()
        offsets = [0.05, 0.05, 0.025]
        n_iters = 1 if self.current_epoch < 20 and not self.hparams.finetune else 2
        out = self.forward(batch, offsets, n_iters)
        self.log('train/loss', out['loss'])
        return out['loss']

    def validation_step(self, batch, batch_idx):
        out = self.forward(batch, [0.05, 0.05, 0.025], 2)
        return out['loss']

    def configure_optimizers(self):
        if self.hparams.finetune:
            mvsnet_params = self.mvsnet.parameters()
        else:
            mvsnet_params = list(self.mvsnet.feat_shrinker.parameters()) + list(self.mvsnet.depth_head.parameters())
        optimizer = torch.optim.Adam([
            {'params': mvsnet_params},
            {'params': self.refine_half.parameters()},
        ], lr=self.hparams.lr)
        scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=self.hparams.lr_step,
                                                    gamma=self.hparams.lr_gamma)
        return [optimizer], [scheduler]


def fit(model, train_loader, max_epochs=1):
    """stands for pl.Trainer(max_epochs=...).fit(model, train_loader)"""
    [optimizer], [scheduler] = model.configure_optimizers()
    for epoch in range(max_epochs):
        model.current_epoch = epoch
        model.train()
        for batch_idx, batch in enumerate(train_loader):
            loss = model.training_step(batch, batch_idx)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        scheduler.step()


if __name__ == '__main__':
    torch.manual_seed(0)
    depth_config = {'depth_start': 0.5, 'depth_interval': 0.05, 'n_intervals': 96, 'size': (56, 56)}
    model = PL3DVNet(depth_config, depth_config, feat_dim=16, img_size=(16, 16), finetune=False)
    backbone_before = model.mvsnet.feat_extractor.layer1[0].weight.detach().clone()
    train_loader = [{'images': torch.randn(2, 3, 16, 16), 'depth_images': torch.rand(2, 16, 16)} for _ in range(3)]
    fit(model, train_loader)
    assert torch.equal(model.mvsnet.feat_extractor.layer1[0].weight, backbone_before)
