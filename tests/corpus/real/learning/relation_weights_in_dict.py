# source: https://github.com/pytorch/pytorch/issues/632
# expect: silent: Parameters kept in a plain dict are not registered: the optimizer never sees them
# buggy-line: 16
import torch
import torch.nn as nn

numfeatures, numrel = 4, 3


class RelationAggregator(nn.Module):
    def __init__(self):
        super().__init__()
        self.waggrs = {}
        self.list_relations = nn.ModuleDict()
        for rel in range(3):
            self.waggrs[rel] = {"w": nn.Parameter(1.0 + torch.randn(1, numrel)), "b": nn.Parameter(torch.zeros(1, numrel))}
            self.list_relations[str(rel)] = nn.Linear(numfeatures, numrel)

    def forward(self, x, rel):
        agg = self.waggrs[rel]
        return self.list_relations[str(rel)](x) * agg["w"] + agg["b"]


model = RelationAggregator()
w0 = model.waggrs[0]["w"].detach().clone()
optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
for rel in range(3):
    loss = model(torch.randn(5, numfeatures), rel).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
assert torch.equal(model.waggrs[0]["w"], w0)
