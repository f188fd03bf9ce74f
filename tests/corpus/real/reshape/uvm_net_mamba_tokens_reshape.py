# source: https://github.com/zzr-idam/UVM-Net/issues/6
# expect: silent: the (b, c, w, h) map is reshaped to (b, -1, c) without moving the channels last: each "token" the LayerNorm and the Mamba blocks see holds c values of one channel, not the c channels of one pixel
# buggy-line: 41
# also-line: 46
# mechanism: x.reshape(b, -1, c) of a (b, c, w, h) tensor (b, c, w, h unpacked from x.shape) moves the channel dim behind the spatial dims without a permute
import torch
import torch.nn as nn


class Mamba(nn.Module):
    """A small stand-in for mamba_ssm.Mamba: a sequence-to-sequence block over
    (batch, length, d_model)."""

    def __init__(self, d_model, d_state=16, d_conv=4, expand=2):
        super().__init__()
        self.proj = nn.Linear(d_model, d_model)

    def forward(self, x):
        return torch.tanh(self.proj(x)).cumsum(dim=1) / x.shape[1]


class UVMB(nn.Module):
    def __init__(self, c=3, w=256, h=256):
        super().__init__()
        self.convb = nn.Sequential(
            nn.Conv2d(in_channels=c, out_channels=c, kernel_size=3, stride=1, padding=1),
            nn.ReLU(),
            nn.Conv2d(in_channels=c, out_channels=c, kernel_size=3, stride=1, padding=1),
        )
        self.model1 = Mamba(d_model=c, d_state=16, d_conv=4, expand=2)
        self.model2 = Mamba(d_model=c, d_state=16, d_conv=4, expand=2)
        self.model3 = Mamba(d_model=w * h, d_state=16, d_conv=4, expand=2)
        self.smooth = nn.Conv2d(in_channels=c, out_channels=c, kernel_size=3, stride=1, padding=1)
        self.ln = nn.LayerNorm(normalized_shape=c)
        self.softmax = nn.Softmax(dim=1)

    def forward(self, x):
        b, c, w, h = x.shape
        x = self.convb(x) + x
        self.features = x
        x = self.ln(x.reshape(b, -1, c))
        y = self.model1(x).permute(0, 2, 1)
        z = self.model3(y).permute(0, 2, 1)
        att = self.softmax(self.model2(x))
        result = att * z
        output = result.reshape(b, c, w, h)
        return self.smooth(output)


torch.manual_seed(0)
model = UVMB(c=3, w=8, h=8)
data = torch.randn(2, 3, 8, 8)
out = model(data)
# the effect: the first token normalised is not pixel (0, 0)'s three channels
tokens = model.ln(model.features.reshape(2, -1, 3))
assert not torch.allclose(tokens[:, 0], model.ln(model.features[:, :, 0, 0]))
