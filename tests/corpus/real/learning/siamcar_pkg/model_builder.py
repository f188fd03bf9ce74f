# stands for pysot/models/model_builder.py of ohhhyeahhh/SiamCAR (backbone, neck, head and
# loss shrunk to small stand-ins; the layers the model holds are the same)
import torch
import torch.nn as nn
import torch.nn.functional as F

from siamcar_pkg.config import cfg


def xcorr_depthwise(x, kernel):
    """depthwise cross correlation"""
    batch = kernel.size(0)
    channel = kernel.size(1)
    x = x.view(1, batch*channel, x.size(2), x.size(3))
    kernel = kernel.view(batch*channel, 1, kernel.size(2), kernel.size(3))
    out = F.conv2d(x, kernel, groups=batch*channel)
    out = out.view(batch, channel, out.size(2), out.size(3))
    return out


class ResNet(nn.Module):
    def __init__(self):
        super(ResNet, self).__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.layer2 = nn.Conv2d(8, 8, 3, padding=1)
        self.layer3 = nn.Conv2d(8, 8, 3, padding=1)
        self.layer4 = nn.Conv2d(8, 8, 3, padding=1)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        p2 = F.relu(self.layer2(x))
        p3 = F.relu(self.layer3(p2))
        p4 = F.relu(self.layer4(p3))
        return [p2, p3, p4]


class AdjustAllLayer(nn.Module):
    def __init__(self):
        super(AdjustAllLayer, self).__init__()
        self.downsample = nn.ModuleList([nn.Conv2d(8, 16, 1) for _ in range(3)])

    def forward(self, features):
        return [d(f) for d, f in zip(self.downsample, features)]


class CARHead(nn.Module):
    def __init__(self, cfg, in_channels):
        super(CARHead, self).__init__()
        self.cls_logits = nn.Conv2d(in_channels, 2, 3, padding=1)
        self.bbox_pred = nn.Conv2d(in_channels, 4, 3, padding=1)
        self.centerness = nn.Conv2d(in_channels, 1, 3, padding=1)

    def forward(self, x):
        return self.cls_logits(x), torch.exp(self.bbox_pred(x)), self.centerness(x)


class ModelBuilder(nn.Module):
    def __init__(self):
        super(ModelBuilder, self).__init__()

        # build backbone
        self.backbone = ResNet()

        # build adjust layer
        if cfg.ADJUST.ADJUST:
            self.neck = AdjustAllLayer()

        # build car head
        self.car_head = CARHead(cfg, 16)

        # build response map
        self.xcorr_depthwise = xcorr_depthwise

        self.down = nn.ConvTranspose2d(16 * 3, 16, 1, 1)

    def forward(self, data):
        """ only used in training
        """
        template = data['template']
        search = data['search']

        # get feature
        zf = self.backbone(template)
        xf = self.backbone(search)
        if cfg.ADJUST.ADJUST:
            zf = self.neck(zf)
            xf = self.neck(xf)

        features = self.xcorr_depthwise(xf[0],zf[0])
        for i in range(len(xf)-1):
            features_new = self.xcorr_depthwise(xf[i+1],zf[i+1])
            features = torch.cat([features,features_new],1)
        features = self.down(features)

        cls, loc, cen = self.car_head(features)
        # stands for the SiamCAR loss evaluator
        cls_loss = cls.pow(2).mean()
        loc_loss = loc.mean()
        cen_loss = cen.abs().mean()

        # get loss
        outputs = {}
        outputs['total_loss'] = cfg.TRAIN.CLS_WEIGHT * cls_loss + \
            cfg.TRAIN.LOC_WEIGHT * loc_loss + cfg.TRAIN.CEN_WEIGHT * cen_loss
        outputs['cls_loss'] = cls_loss
        outputs['loc_loss'] = loc_loss
        outputs['cen_loss'] = cen_loss
        return outputs
