# source: https://github.com/facebookresearch/dinov2/issues/472
# expect: RuntimeError: Inference tensors cannot be saved for backward. To work around you can make a clone to get a normal tensor and use it in autograd.
# buggy-line: 44
# also-line: 27
import itertools
import math
from functools import partial

import torch
import torch.nn as nn
import torch.nn.functional as F


class CenterPadding(torch.nn.Module):
    def __init__(self, multiple):
        super().__init__()
        self.multiple = multiple

    def _get_pad(self, size):
        new_size = math.ceil(size / self.multiple) * self.multiple
        pad_size = new_size - size
        pad_size_left = pad_size // 2
        pad_size_right = pad_size - pad_size_left
        return pad_size_left, pad_size_right

    @torch.inference_mode()
    def forward(self, x):
        pads = list(itertools.chain.from_iterable(self._get_pad(m) for m in x.shape[:1:-1]))
        output = F.pad(x, pads)
        return output


class TinyViT(nn.Module):
    """stand-in for the dinov2 vit_small backbone"""

    def __init__(self, patch_size=14, embed_dim=32, depth=2):
        super().__init__()
        self.patch_size = patch_size
        self.patch_embed = nn.Conv2d(3, embed_dim, patch_size, patch_size)
        self.blocks = nn.ModuleList([nn.Sequential(nn.LayerNorm(embed_dim), nn.Linear(embed_dim, embed_dim), nn.GELU()) for _ in range(depth)])

    def get_intermediate_layers(self, x, n=1, reshape=False, return_class_token=False, norm=True):
        B, _, H, W = x.shape
        x = self.patch_embed(x)
        h, w = x.shape[-2:]
        x = x.flatten(2).transpose(1, 2)
        outs = []
        for i, blk in enumerate(self.blocks):
            x = x + blk(x)
            if i in n:
                outs.append(x)
        if reshape:
            outs = [o.transpose(1, 2).reshape(B, -1, h, w) for o in outs]
        if return_class_token:
            return tuple((o, o.mean(dim=(2, 3))) for o in outs)
        return tuple(outs)


class BackboneStub(nn.Module):
    def forward(self, x):
        return x


class LinearDepthHead(nn.Module):
    def __init__(self, in_channels, min_depth=0.001, max_depth=10.0):
        super().__init__()
        self.conv_depth = nn.Conv2d(in_channels, 1, kernel_size=1)
        self.min_depth = min_depth
        self.max_depth = max_depth

    def forward(self, inputs):
        feats = torch.cat([f for f, _ in inputs], dim=1)
        return torch.sigmoid(self.conv_depth(feats)) * self.max_depth


class DepthEncoderDecoder(nn.Module):
    def __init__(self, backbone, decode_head):
        super().__init__()
        self.backbone = backbone
        self.decode_head = decode_head

    def forward(self, img, img_metas=None, depth_gt=None, return_loss=False):
        feats = self.backbone(img)
        depth = self.decode_head(feats)
        depth = F.interpolate(depth, size=img.shape[-2:], mode="bilinear", align_corners=False)
        if return_loss:
            return {"loss_depth": F.l1_loss(depth, depth_gt)}
        return depth


def create_depther(cfg, backbone_model):
    depther = DepthEncoderDecoder(BackboneStub(), LinearDepthHead(in_channels=32 * len(cfg["out_indices"])))
    depther.backbone.forward = partial(
        backbone_model.get_intermediate_layers,
        n=cfg["out_indices"],
        reshape=True,
        return_class_token=cfg["output_cls_token"],
        norm=cfg["final_norm"],
    )
    if hasattr(backbone_model, "patch_size"):
        depther.backbone.register_forward_pre_hook(lambda _, x: CenterPadding(backbone_model.patch_size)(x[0]))
    return depther


cfg = {"out_indices": [0, 1], "output_cls_token": True, "final_norm": False}
backbone_model = TinyViT()
model = create_depther(cfg, backbone_model)
optimizer = torch.optim.AdamW(list(model.parameters()) + list(backbone_model.parameters()), lr=1e-4)

train_loader = [{"image": torch.randn(2, 3, 60, 80), "depth": torch.rand(2, 1, 60, 80) * 10} for _ in range(2)]
num_epochs = 1
model.backbone.train()
model.train()
backbone_model.train()

for epoch in range(num_epochs):
    model.train()
    for batch in train_loader:
        images = batch["image"]
        depths = batch["depth"]
        losses = model(images, img_metas=None, depth_gt=depths, return_loss=True)
        loss = losses["loss_depth"]
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(epoch, loss.item())
