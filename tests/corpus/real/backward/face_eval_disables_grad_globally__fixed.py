# source: https://github.com/foamliu/InsightFace-v2/issues/21
# expect: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


class ArcMarginModel(nn.Module):
    def __init__(self, emb_size=8, num_classes=5, s=16.0):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(num_classes, emb_size))
        self.s = s

    def forward(self, x, label):
        cosine = F.linear(F.normalize(x), F.normalize(self.weight))
        return cosine * self.s


def lfw_test(model):
    model.eval()
    with torch.no_grad():  # scoped: grad mode comes back on exit
        a, b = torch.randn(3, 12), torch.randn(3, 12)
        sims = F.cosine_similarity(model(a), model(b))
    model.train()
    return sims.mean().item()


def train(model, metric_fc, optimizer, steps=2):
    for i in range(steps):
        img, label = torch.randn(4, 12), torch.randint(0, 5, (4,))
        feature = model(img)
        output = metric_fc(feature, label)
        loss = F.cross_entropy(output, label)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


model = nn.Sequential(nn.Linear(12, 8), nn.BatchNorm1d(8))
metric_fc = ArcMarginModel()
optimizer = torch.optim.SGD(list(model.parameters()) + list(metric_fc.parameters()), lr=0.1)
for epoch in range(2):
    print("lfw acc", lfw_test(model))
    train(model, metric_fc, optimizer)
