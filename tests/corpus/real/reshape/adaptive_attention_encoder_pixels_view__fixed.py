# source: https://github.com/fawazsammani/knowing-when-to-look-adaptive-attention/issues/6
# expect: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


class Encoder(nn.Module):
    def __init__(self, hidden_size=16, embed_size=16):
        super(Encoder, self).__init__()
        # a small stand-in for resnet-152 without its pool and fc: (batch_size, 2048, 7, 7)
        self.resnet = nn.Sequential(nn.Conv2d(3, 32, kernel_size=3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d((7, 7)))
        self.avgpool = nn.AvgPool2d(7)
        self.affine_embed = nn.Linear(32, embed_size)
        self.dropout = nn.Dropout(0.5)
        self.init_h = nn.Linear(32, hidden_size)
        self.init_c = nn.Linear(32, hidden_size)

    def forward(self, images):
        encoded_image = self.resnet(images)  # (batch_size,2048,7,7)
        batch_size = encoded_image.shape[0]
        features = encoded_image.shape[1]
        num_pixels = encoded_image.shape[2] * encoded_image.shape[3]
        # Get the global features of the image
        global_features = self.avgpool(encoded_image).view(batch_size, -1)  # (batch_size, 2048)
        enc_image = encoded_image.permute(0, 2, 3, 1)  # (batch_size,7,7,2048)
        enc_image = enc_image.view(batch_size, num_pixels, features)  # (batch_size,num_pixels,2048)
        enc_image = self.dropout(F.relu(self.affine_embed(enc_image)))  # (batch_size,num_pixels,hidden_size)
        h = torch.tanh(self.init_h(global_features))
        c = torch.tanh(self.init_c(global_features))
        return enc_image, h, c


torch.manual_seed(0)
encoder = Encoder().eval()
images = torch.randn(2, 3, 14, 14)
fmap = encoder.resnet(images)
enc_image, h, c = encoder(images)
expected = F.relu(encoder.affine_embed(fmap[:, :, 0, 0]))
assert torch.allclose(enc_image[:, 0], expected)
