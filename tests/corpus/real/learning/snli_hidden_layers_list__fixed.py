# source: https://github.com/pytorch/pytorch/issues/715
# expect: clean
import torch
import torch.nn as nn
import torch.nn.functional as F

options = {"n_layers": 2, "n_hid": 8, "act": "Tanh", "dim_word": 6}


class SNLINet(nn.Module):
    def __init__(self, options):
        super().__init__()
        self.emb = nn.Linear(2 * options["dim_word"], options["n_hid"])
        hids = []
        for li in range(options["n_layers"]):
            hids.append(nn.Sequential(nn.Linear(options["n_hid"], options["n_hid"]), eval("nn.{}".format(options["act"]))()))
        self.hids = nn.ModuleList(hids)
        self.classifier = nn.Linear(options["n_hid"], 3)

    def forward(self, premise, hypothesis):
        h = self.emb(torch.cat([premise, hypothesis], -1))
        for block in self.hids:
            h = block(h)
        return self.classifier(h)


model = SNLINet(options)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
for step in range(2):
    p, h, y = torch.randn(4, 6), torch.randn(4, 6), torch.randint(0, 3, (4,))
    loss = F.cross_entropy(model(p, h), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
trained = {id(p) for p in model.parameters()}
assert id(model.hids[0][0].weight) in trained
