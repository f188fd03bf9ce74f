"""stands for mmcv.cnn: ConvModule built from config dicts"""
import torch.nn as nn

ACTIVATION_LAYERS = {'ReLU': nn.ReLU, 'LeakyReLU': nn.LeakyReLU, 'ELU': nn.ELU}
NORM_LAYERS = {'BN': nn.BatchNorm2d, 'GN': nn.GroupNorm}


def build_activation_layer(cfg):
    cfg_ = cfg.copy()
    layer_type = cfg_.pop('type')
    return ACTIVATION_LAYERS[layer_type](**cfg_)


class ConvModule(nn.Module):
    """A conv block that bundles conv/norm/activation layers."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 conv_cfg=None, norm_cfg=None, act_cfg=dict(type='ReLU'), inplace=True):
        super().__init__()
        self.with_norm = norm_cfg is not None
        self.with_activation = act_cfg is not None
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size, stride=stride, padding=padding,
                              bias=not self.with_norm)
        if self.with_norm:
            self.bn = NORM_LAYERS[norm_cfg['type']](out_channels)
        if self.with_activation:
            act_cfg_ = act_cfg.copy()
            # nn.Tanh has no 'inplace' argument
            if act_cfg_['type'] not in ['Tanh', 'PReLU', 'Sigmoid', 'HSigmoid', 'Swish', 'GELU']:
                act_cfg_.setdefault('inplace', inplace)
            self.activate = build_activation_layer(act_cfg_)

    def forward(self, x):
        x = self.conv(x)
        if self.with_norm:
            x = self.bn(x)
        if self.with_activation:
            x = self.activate(x)
        return x
