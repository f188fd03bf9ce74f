# source: https://github.com/vitrioil/Speech-Separation/issues/4
# expect: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


class Audio_Model(nn.Module):
    def __init__(self, last_shape=8):
        super(Audio_Model, self).__init__()
        self.conv1 = nn.Conv2d(2, 16, kernel_size=(1, 7), padding=(0, 3), dilation=(1, 1))
        self.conv2 = nn.Conv2d(16, 16, kernel_size=(7, 1), padding=(3, 0), dilation=(1, 1))
        self.conv15 = nn.Conv2d(16, last_shape, kernel_size=(1, 1), padding=(0, 0), dilation=(1, 1))
        self.batch_norm1 = nn.BatchNorm2d(16)
        self.batch_norm2 = nn.BatchNorm2d(16)
        self.batch_norm15 = nn.BatchNorm2d(last_shape)

    def forward(self, input_audio):
        # input_audio will be (N,514,298)
        input_audio = input_audio.view(input_audio.size(0), 2, -1, input_audio.size(2)).transpose(2, 3)
        # now (N,2,298,257)

        output_layer = F.relu(self.batch_norm1(self.conv1(input_audio)))
        output_layer = F.relu(self.batch_norm2(self.conv2(output_layer)))
        output_layer = F.relu(self.batch_norm15(self.conv15(output_layer)))

        # output_layer will be (N,8,298,257)
        # we want it to be (N,8*257,298,1)
        batch_size = output_layer.size(0)  # N
        height = output_layer.size(2)  # 298

        output_layer = output_layer.permute(0, 2, 1, 3).contiguous().view(batch_size, height, -1, 1).permute(0, 2, 1, 3)
        return output_layer


torch.manual_seed(0)
model = Audio_Model().eval()
audio = torch.randn(2, 2 * 9, 6)  # (N, 2 * freq, frames)
out = model(audio)
with torch.no_grad():
    features = model.batch_norm15(model.conv15(F.relu(model.batch_norm2(model.conv2(F.relu(model.batch_norm1(model.conv1(audio.view(2, 2, -1, 6).transpose(2, 3)))))))))
features = F.relu(features)
frame0 = features[:, :, 0, :].reshape(2, -1)
assert torch.allclose(out[:, :, 0, 0], frame0)
