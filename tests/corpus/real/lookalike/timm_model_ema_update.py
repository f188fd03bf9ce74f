# source: https://github.com/huggingface/pytorch-image-models/blob/main/timm/utils/model_ema.py
# expect: clean
# note: in-place lerp of an EMA copy's parameters and buffers, under torch.no_grad()
from copy import deepcopy

import torch
import torch.nn as nn


class ModelEmaV2(nn.Module):
    def __init__(self, model, decay=0.9999):
        super().__init__()
        self.module = deepcopy(model)
        self.module.eval()
        self.decay = decay

    def _update(self, model, update_fn):
        with torch.no_grad():
            for ema_v, model_v in zip(self.module.state_dict().values(), model.state_dict().values()):
                ema_v.copy_(update_fn(ema_v, model_v))

    def update(self, model):
        self._update(model, update_fn=lambda e, m: self.decay * e + (1.0 - self.decay) * m)

    def set(self, model):
        self._update(model, update_fn=lambda e, m: m)


model = nn.Sequential(nn.Linear(6, 6), nn.BatchNorm1d(6), nn.ReLU(), nn.Linear(6, 2))
ema = ModelEmaV2(model, decay=0.99)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
for _ in range(2):
    x, y = torch.randn(4, 6), torch.randint(0, 2, (4,))
    optimizer.zero_grad()
    loss = nn.functional.cross_entropy(model(x), y)
    loss.backward()
    optimizer.step()
    ema.update(model)
with torch.no_grad():
    ema.module(torch.randn(4, 6))
