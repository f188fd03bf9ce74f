# source: https://github.com/facebookresearch/3detr/issues/55
# expect: clean
import argparse
import copy
from functools import partial
from typing import Optional

import torch
import torch.nn as nn
from torch import Tensor


class BatchNormDim1Swap(nn.BatchNorm1d):
    """
    Used for nn.Transformer that uses a HW x N x C rep
    """

    def forward(self, x):
        hw, n, c = x.shape
        x = x.permute(1, 2, 0)
        x = super(BatchNormDim1Swap, self).forward(x)
        # x: n x c x hw -> hw x n x c
        x = x.permute(2, 0, 1)
        return x


NORM_DICT = {
    "bn": BatchNormDim1Swap,
    "bn1d": nn.BatchNorm1d,
    "id": nn.Identity,
    "ln": nn.LayerNorm,
}

ACTIVATION_DICT = {
    "relu": nn.ReLU,
    "gelu": nn.GELU,
    "leakyrelu": partial(nn.LeakyReLU, negative_slope=0.1),
}


def get_clones(module, N):
    return nn.ModuleList([copy.deepcopy(module) for i in range(N)])


class TransformerEncoder(nn.Module):
    def __init__(self, encoder_layer, num_layers, norm=None, weight_init_name="xavier_uniform"):
        super().__init__()
        self.layers = get_clones(encoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, src, mask: Optional[Tensor] = None, src_key_padding_mask: Optional[Tensor] = None, pos: Optional[Tensor] = None, xyz: Optional[Tensor] = None, transpose_swap: Optional[bool] = False):
        output = src
        for idx, layer in enumerate(self.layers):
            output = layer(output, src_mask=mask, src_key_padding_mask=src_key_padding_mask, pos=pos)
        if self.norm is not None:
            output = self.norm(output)
        return xyz, output, None


class TransformerEncoderLayer(nn.Module):
    def __init__(self, d_model, nhead=4, dim_feedforward=128, dropout=0.1, dropout_attn=None, activation="relu", normalize_before=True, norm_name="ln", use_ffn=True, ffn_use_bias=True):
        super().__init__()
        if dropout_attn is None:
            dropout_attn = dropout
        self.self_attn = nn.MultiheadAttention(d_model, nhead, dropout=dropout_attn)
        self.use_ffn = use_ffn
        if self.use_ffn:
            # Implementation of Feedforward model
            self.linear1 = nn.Linear(d_model, dim_feedforward, bias=ffn_use_bias)
            self.dropout = nn.Dropout(dropout, inplace=False)
            self.linear2 = nn.Linear(dim_feedforward, d_model, bias=ffn_use_bias)
            self.norm2 = NORM_DICT[norm_name](d_model)
            self.norm2 = NORM_DICT[norm_name](d_model)
            self.dropout2 = nn.Dropout(dropout, inplace=False)

        self.norm1 = NORM_DICT[norm_name](d_model)
        self.dropout1 = nn.Dropout(dropout, inplace=False)

        self.activation = ACTIVATION_DICT[activation]()
        self.normalize_before = normalize_before
        self.nhead = nhead

    def with_pos_embed(self, tensor, pos: Optional[Tensor]):
        return tensor if pos is None else tensor + pos

    def forward_pre(self, src, src_mask: Optional[Tensor] = None, src_key_padding_mask: Optional[Tensor] = None, pos: Optional[Tensor] = None, return_attn_weights: Optional[Tensor] = False):
        src2 = self.norm1(src)
        value = src2
        q = k = self.with_pos_embed(src2, pos)
        src2, attn_weights = self.self_attn(q, k, value=value, attn_mask=src_mask, key_padding_mask=src_key_padding_mask)
        src = src + self.dropout1(src2)
        if self.use_ffn:
            src2 = self.norm2(src)
            src2 = self.linear2(self.dropout(self.activation(self.linear1(src2))))
            src = src + self.dropout2(src2)
        if return_attn_weights:
            return src, attn_weights
        return src

    def forward(self, src, src_mask: Optional[Tensor] = None, src_key_padding_mask: Optional[Tensor] = None, pos: Optional[Tensor] = None, return_attn_weights: Optional[Tensor] = False):
        if self.normalize_before:
            return self.forward_pre(src, src_mask, src_key_padding_mask, pos, return_attn_weights)
        raise NotImplementedError


def build_encoder(args):
    encoder_layer = TransformerEncoderLayer(
        d_model=args.enc_dim,
        nhead=args.enc_nhead,
        dim_feedforward=args.enc_ffn_dim,
        dropout=args.enc_dropout,
        activation=args.enc_activation,
    )
    encoder = TransformerEncoder(encoder_layer=encoder_layer, num_layers=args.enc_nlayers)
    return encoder


class Model3DETR(nn.Module):
    """stands for models/model_3detr.py: a linear pre-encoder instead of PointNet++ set abstraction"""

    def __init__(self, encoder, enc_dim, num_classes):
        super().__init__()
        self.pre_encoder = nn.Linear(3, enc_dim)
        self.encoder = encoder
        self.head = nn.Linear(enc_dim, num_classes)

    def forward(self, inputs):
        point_clouds = inputs["point_clouds"]
        pre_enc_features = self.pre_encoder(point_clouds).permute(1, 0, 2)  # npoints x batch x channel
        enc_xyz, enc_features, enc_inds = self.encoder(pre_enc_features, xyz=point_clouds)
        return {"sem_cls_logits": self.head(enc_features.mean(0))}


def make_args_parser():
    parser = argparse.ArgumentParser("3D Detection Using Transformers", add_help=False)
    parser.add_argument("--enc_nlayers", default=3, type=int)
    parser.add_argument("--enc_dim", default=32, type=int)
    parser.add_argument("--enc_ffn_dim", default=64, type=int)
    parser.add_argument("--enc_dropout", default=0.1, type=float)
    parser.add_argument("--enc_nhead", default=4, type=int)
    parser.add_argument("--enc_activation", default="relu", type=str)
    parser.add_argument("--base_lr", default=5e-4, type=float)
    parser.add_argument("--max_epoch", default=1, type=int)
    return parser


def train_one_epoch(args, curr_epoch, model, optimizer, criterion, dataset_loader):
    model.train()
    for batch_idx, batch_data_label in enumerate(dataset_loader):
        optimizer.zero_grad()
        inputs = {"point_clouds": batch_data_label["point_clouds"]}
        outputs = model(inputs)
        loss = criterion(outputs["sem_cls_logits"], batch_data_label["sem_cls_label"])
        loss.backward()
        optimizer.step()


args = make_args_parser().parse_args([])
model = Model3DETR(build_encoder(args), args.enc_dim, num_classes=10)
optimizer = torch.optim.AdamW(model.parameters(), lr=args.base_lr)
criterion = nn.CrossEntropyLoss()
dataset_loader = [{"point_clouds": torch.randn(2, 64, 3), "sem_cls_label": torch.randint(0, 10, (2,))} for _ in range(2)]
for epoch in range(args.max_epoch):
    train_one_epoch(args, epoch, model, optimizer, criterion, dataset_loader)
