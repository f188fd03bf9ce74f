"""Stands for scripts/hlmobilenetv2.py of poppinace/indexnet_matting: the encoder-decoder with
its freeze_bn option (layers shrunk, no pretrained weights, no index blocks)."""
import torch
import torch.nn as nn
import torch.nn.functional as F


def conv_bn(inp, oup, k=3, s=1, BatchNorm2d=nn.BatchNorm2d):
    return nn.Sequential(
        nn.Conv2d(inp, oup, k, s, padding=k // 2, bias=False),
        BatchNorm2d(oup),
        nn.ReLU6(inplace=True)
    )


class hlMobileNetV2UNetDecoderIndexLearning(nn.Module):
    def __init__(
            self,
            output_stride=32,
            input_size=320,
            width_mult=1.,
            conv_operator='std_conv',
            decoder_kernel_size=5,
            apply_aspp=False,
            freeze_bn=False,
            use_nonlinear=False,
            use_context=False,
            indexnet='holistic',
            index_mode='o2o',
            sync_bn=False
        ):
        super(hlMobileNetV2UNetDecoderIndexLearning, self).__init__()
        self.width_mult = width_mult
        self.output_stride = output_stride
        self.index_mode = index_mode

        BatchNorm2d = nn.BatchNorm2d

        self.layer0 = conv_bn(4, 8, 3, 2, BatchNorm2d)
        self.layer1 = conv_bn(8, 16, 3, 2, BatchNorm2d)
        self.dconv1 = conv_bn(16, 8, decoder_kernel_size, 1, BatchNorm2d)
        self.pred = nn.Conv2d(8, 1, 3, 1, padding=1, bias=False)

        self._initialize_weights()

        if freeze_bn:
            self.freeze_bn()

    def forward(self, x):
        size = x.shape[2:]
        l = self.layer1(self.layer0(x))
        l = self.dconv1(l)
        l = self.pred(l)
        return torch.sigmoid(F.interpolate(l, size=size, mode='bilinear', align_corners=False))

    def freeze_bn(self):
        for m in self.modules():
            if isinstance(m, nn.BatchNorm2d):
                m.eval()

    def _initialize_weights(self):
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode='fan_out', nonlinearity='relu')
            elif isinstance(m, nn.BatchNorm2d):
                m.weight.data.fill_(1)
                m.bias.data.zero_()


def hlmobilenetv2(pretrained=False, decoder='unet_style', **kwargs):
    """Constructs a MobileNet_V2 model."""
    model = hlMobileNetV2UNetDecoderIndexLearning(**kwargs)
    return model
