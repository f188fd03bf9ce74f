# source: https://github.com/wqshmzh/CANet-CZSL/issues/7
# expect: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


class CANet(nn.Module):
    def __init__(self, feat_dim=512, emb_dim=16, n_attrs=5):
        super().__init__()
        self.image_embedder_attr = nn.Sequential(nn.Linear(feat_dim, feat_dim), nn.ReLU(), nn.Linear(feat_dim, emb_dim))
        self.attr_emb = nn.Parameter(torch.randn(n_attrs, emb_dim))

    def forward(self, x, attrs):
        # x: resnet18 feature vectors as stored, (N, 512, 1, 1)
        img_attr = self.image_embedder_attr(x.squeeze())  # (N, 512)
        logits = F.normalize(img_attr, dim=-1) @ F.normalize(self.attr_emb, dim=-1).t()
        return F.cross_entropy(logits * 20, attrs)


model = CANet()
optimizer = torch.optim.Adam(model.parameters(), lr=5e-5)
features = torch.randn(2, 512, 1, 1)
loss = model(features, torch.tensor([1, 3]))
optimizer.zero_grad()
loss.backward()
optimizer.step()
