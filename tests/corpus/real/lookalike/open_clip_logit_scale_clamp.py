# source: https://github.com/mlfoundations/open_clip/blob/main/src/open_clip_train/train.py
# expect: clean
# note: `logit_scale.clamp_(0, log 100)` edits a Parameter in place, under torch.no_grad(), after optimizer.step()
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class CLIP(nn.Module):
    def __init__(self, embed_dim=8):
        super().__init__()
        self.visual = nn.Linear(12, embed_dim)
        self.text = nn.Embedding(20, embed_dim)
        self.logit_scale = nn.Parameter(torch.ones([]) * np.log(1 / 0.07))

    def forward(self, image, text):
        image_features = F.normalize(self.visual(image), dim=-1)
        text_features = F.normalize(self.text(text).mean(1), dim=-1)
        return image_features, text_features, self.logit_scale.exp()


def unwrap_model(model):
    return model.module if hasattr(model, "module") else model


def clip_loss(image_features, text_features, logit_scale):
    logits_per_image = logit_scale * image_features @ text_features.T
    labels = torch.arange(logits_per_image.shape[0])
    return (F.cross_entropy(logits_per_image, labels) + F.cross_entropy(logits_per_image.T, labels)) / 2


model = CLIP()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
for i in range(2):
    images, texts = torch.randn(4, 12), torch.randint(0, 20, (4, 5))
    optimizer.zero_grad()
    total_loss = clip_loss(*model(images, texts))
    total_loss.backward()
    optimizer.step()
    with torch.no_grad():
        unwrap_model(model).logit_scale.clamp_(0, math.log(100))
