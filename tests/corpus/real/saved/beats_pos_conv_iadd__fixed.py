# source: https://github.com/microsoft/unilm/pull/999
# expect: clean
import math

import torch
import torch.nn.functional as F
from torch import nn
from torch.nn import LayerNorm


class SamePad(nn.Module):
    def __init__(self, kernel_size, causal=False):
        super().__init__()
        if causal:
            self.remove = kernel_size - 1
        else:
            self.remove = 1 if kernel_size % 2 == 0 else 0

    def forward(self, x):
        if self.remove > 0:
            x = x[:, :, : -self.remove]
        return x


class TransformerEncoder(nn.Module):
    def __init__(self, args):
        super().__init__()
        self.dropout = args.dropout
        self.embedding_dim = args.encoder_embed_dim
        self.pos_conv = nn.Conv1d(
            self.embedding_dim,
            self.embedding_dim,
            kernel_size=args.conv_pos,
            padding=args.conv_pos // 2,
            groups=args.conv_pos_groups,
        )
        dropout = 0
        std = math.sqrt((4 * (1.0 - dropout)) / (args.conv_pos * self.embedding_dim))
        nn.init.normal_(self.pos_conv.weight, mean=0, std=std)
        nn.init.constant_(self.pos_conv.bias, 0)
        self.pos_conv = nn.Sequential(self.pos_conv, SamePad(args.conv_pos), nn.GELU())
        self.layer_norm_first = args.layer_norm_first
        self.layer_norm = LayerNorm(self.embedding_dim)
        self.fc = nn.Linear(self.embedding_dim, self.embedding_dim)

    def forward(self, x, padding_mask=None):
        return self.extract_features(x, padding_mask)

    def extract_features(self, x, padding_mask=None):
        if padding_mask is not None:
            x[padding_mask] = 0
        x_conv = self.pos_conv(x.transpose(1, 2))
        x_conv = x_conv.transpose(1, 2)
        x = x + x_conv
        if not self.layer_norm_first:
            x = self.layer_norm(x)
        x = F.dropout(x, p=self.dropout, training=self.training)
        return self.fc(x)


class BEATsConfig:
    def __init__(self, cfg=None):
        self.encoder_embed_dim = 8
        self.conv_pos = 4
        self.conv_pos_groups = 2
        self.dropout = 0.1
        self.layer_norm_first = False
        if cfg is not None:
            self.update(cfg)

    def update(self, cfg: dict):
        self.__dict__.update(cfg)


class BEATs(nn.Module):
    def __init__(self, cfg: BEATsConfig) -> None:
        super().__init__()
        self.embed = 16
        self.patch_embedding = nn.Conv2d(1, self.embed, kernel_size=4, stride=4, bias=False)
        self.layer_norm = LayerNorm(self.embed)
        self.post_extract_proj = nn.Linear(self.embed, cfg.encoder_embed_dim)
        self.dropout_input = nn.Dropout(0.0)
        self.encoder = TransformerEncoder(cfg)

    def extract_features(self, fbank, padding_mask=None):
        features = self.patch_embedding(fbank.unsqueeze(1))
        features = features.reshape(features.shape[0], features.shape[1], -1).transpose(1, 2)
        features = self.layer_norm(features)
        features = self.post_extract_proj(features)
        x = self.dropout_input(features)
        return self.encoder(x, padding_mask=padding_mask)


# fine-tuning on our own labels
cfg = BEATsConfig({"encoder_embed_dim": 8})
model = BEATs(cfg)
head = nn.Linear(8, 3)
optimizer = torch.optim.AdamW(list(model.parameters()) + list(head.parameters()), lr=1e-4)
fbank = torch.randn(2, 16, 16)
labels = torch.tensor([0, 2])
logits = head(model.extract_features(fbank).mean(dim=1))
loss = F.cross_entropy(logits, labels)
optimizer.zero_grad()
loss.backward()
optimizer.step()
