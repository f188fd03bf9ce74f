# source: https://github.com/ronghuaiyang/arcface-pytorch/issues/56
# expect: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


class ArcMarginProduct(nn.Module):
    def __init__(self, in_features=8, out_features=5, s=30.0):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(out_features, in_features))
        self.s = s

    def forward(self, input, label):
        cosine = F.linear(F.normalize(input), F.normalize(self.weight))
        return cosine * self.s


model = nn.Sequential(nn.Linear(12, 8), nn.BatchNorm1d(8))
metric_fc = ArcMarginProduct()
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD([{"params": model.parameters()}, {"params": metric_fc.parameters()}], lr=0.1)
w_before = metric_fc.weight.detach().clone()

for i in range(2):
    data_input, label = torch.randn(4, 12), torch.randint(0, 5, (4,))
    feature = model(data_input)
    output = metric_fc(feature, label)
    loss = criterion(output, label)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
assert not torch.equal(metric_fc.weight, w_before)
