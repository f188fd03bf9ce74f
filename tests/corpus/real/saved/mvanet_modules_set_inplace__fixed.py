# source: https://github.com/qianyu-dlut/MVANet/issues/2
# expect: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


def get_activation_fn(activation):
    if activation == "relu":
        return nn.ReLU()
    if activation == "gelu":
        return nn.GELU()
    raise RuntimeError(f"activation should be relu/gelu, not {activation}.")


class TransformerFFN(nn.Module):
    def __init__(self, d_model, dim_feedforward=16, dropout=0.1, activation="relu"):
        super().__init__()
        self.linear1 = nn.Linear(d_model, dim_feedforward)
        self.dropout = nn.Dropout(dropout)
        self.linear2 = nn.Linear(dim_feedforward, d_model)
        self.norm = nn.LayerNorm(d_model)
        self.activation = get_activation_fn(activation)

    def forward(self, tgt):
        tgt2 = self.linear2(self.dropout(self.activation(self.linear1(tgt))))
        return self.norm(tgt + tgt2)


class MVANet(nn.Module):
    def __init__(self, d_model=8):
        super().__init__()
        self.embed = nn.Conv2d(3, d_model, 4, stride=4)
        self.ffn = TransformerFFN(d_model)
        self.head = nn.Conv2d(d_model, 1, 1)

    def forward(self, x):
        feat = self.embed(x)
        b, c, h, w = feat.shape
        tokens = self.ffn(feat.flatten(2).permute(2, 0, 1))
        feat = tokens.permute(1, 2, 0).reshape(b, c, h, w)
        return F.interpolate(self.head(feat), size=x.shape[2:], mode="bilinear", align_corners=False)


generator = MVANet()
optimizer = torch.optim.Adam(generator.parameters(), lr=1e-5)
images, gts = torch.randn(2, 3, 16, 16), torch.rand(2, 1, 16, 16)
optimizer.zero_grad()
loss = F.binary_cross_entropy_with_logits(generator(images), gts)
loss.backward()
optimizer.step()
