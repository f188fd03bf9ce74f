# source: https://github.com/LianpoWang/SLIIF/issues/13
# expect: clean
import torch
import torch.nn as nn


class RES_MLP(nn.Module):
    def __init__(self, in_dim, out_dim, hidden_list):
        super().__init__()
        layers = []
        lastv = in_dim
        for hidden in hidden_list:
            layers.append(nn.Linear(lastv, hidden))
            layers.append(nn.ReLU())
            lastv = hidden
        self.layers = nn.Sequential(*layers)
        self.out = nn.Linear(lastv + in_dim, out_dim)

    def forward(self, x):
        return self.out(torch.cat([self.layers(x), x], dim=-1))


class COOD_MLP(nn.Module):
    def __init__(self, in_dim, out_dim, hidden_list):
        super().__init__()
        layers = []
        lastv = in_dim
        for hidden in hidden_list:
            layers.append(nn.Linear(lastv, hidden))
            layers.append(nn.ReLU())
            lastv = hidden
        layers.append(nn.Linear(lastv, out_dim))
        self.layers = nn.Sequential(*layers)

    def forward(self, x):
        return self.layers(x)


class ExpansionNet(nn.Module):
    def __init__(self, in_dim, out_dim, hidden_list):
        super().__init__()
        self.net = COOD_MLP(in_dim, out_dim, hidden_list)

    def forward(self, x):
        return torch.softmax(self.net(x), dim=-1)


class RESMLPS(nn.Module):
    def __init__(self, in_dim, out_dim, hidden_list, coord_hidden_list):
        super().__init__()
        self.mlps = nn.ModuleList([RES_MLP(in_dim, out_dim, coord_hidden_list) for _ in range(10)])
        self.cood_mlp = COOD_MLP(2, 16, hidden_list)
        self.expansionNet = ExpansionNet(in_dim + 16, 10, hidden_list)

    def forward(self, x, coord):
        coord_feat = self.cood_mlp(coord)
        weights = self.expansionNet(torch.cat([x, coord_feat], dim=-1))
        outs = torch.stack([mlp(x) for mlp in self.mlps], dim=-1)
        return (outs * weights.unsqueeze(-2)).sum(-1)


model = RESMLPS(in_dim=8, out_dim=3, hidden_list=[16], coord_hidden_list=[16])
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
before = model.mlps[0].out.weight.clone()
for _ in range(2):
    optimizer.zero_grad()
    pred = model(torch.randn(4, 8), torch.rand(4, 2))
    loss = (pred - torch.rand(4, 3)).abs().mean()
    loss.backward()
    optimizer.step()
assert not torch.equal(model.mlps[0].out.weight, before)
