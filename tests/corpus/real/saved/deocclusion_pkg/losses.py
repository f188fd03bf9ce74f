"""Stands for models/losses.py of XiaohangZhan/deocclusion (edge-connect's AdversarialLoss)."""
import torch
import torch.nn as nn


class AdversarialLoss(nn.Module):
    def __init__(self, type='nsgan', target_real_label=1.0, target_fake_label=0.0):
        super(AdversarialLoss, self).__init__()
        self.type = type
        self.register_buffer('real_label', torch.tensor(target_real_label))
        self.register_buffer('fake_label', torch.tensor(target_fake_label))
        if type == 'nsgan':
            self.criterion = nn.BCELoss()
        elif type == 'lsgan':
            self.criterion = nn.MSELoss()

    def __call__(self, outputs, is_real, is_disc=None):
        labels = (self.real_label if is_real else self.fake_label).expand_as(outputs)
        loss = self.criterion(outputs, labels)
        return loss


class InpaintingLoss(nn.Module):
    def __init__(self, extractor):
        super(InpaintingLoss, self).__init__()
        self.l1 = nn.L1Loss()
        self.extractor = extractor

    def forward(self, input, mask, output, gt):
        loss_dict = {}
        output_comp = mask * input + (1 - mask) * output
        loss_dict['hole'] = self.l1((1 - mask) * output, (1 - mask) * gt)
        loss_dict['valid'] = self.l1(mask * output, mask * gt)
        feat_output_comp = self.extractor(output_comp)
        feat_gt = self.extractor(gt)
        loss_dict['prc'] = self.l1(feat_output_comp[0], feat_gt[0])
        return loss_dict
