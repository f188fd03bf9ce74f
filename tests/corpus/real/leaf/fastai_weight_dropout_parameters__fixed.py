# source: https://github.com/pytorch/pytorch/issues/38198
# expect: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


class WeightDropout(nn.Module):
    "A module that wraps another layer in which some weights will be replaced by 0 during training."

    def __init__(self, module, weight_p, layer_names=("weight_hh",)):
        super().__init__()
        self.module, self.weight_p, self.layer_names = module, weight_p, layer_names
        for layer in self.layer_names:
            w = getattr(self.module, layer)
            delattr(self.module, layer)
            self.register_parameter(f"{layer}_raw", nn.Parameter(w.data))
            setattr(self.module, layer, F.dropout(w.data, p=self.weight_p, training=False))

    def _setweights(self):
        for layer in self.layer_names:
            raw_w = getattr(self, f"{layer}_raw")
            setattr(self.module, layer, F.dropout(raw_w, p=self.weight_p, training=self.training))

    def forward(self, *args):
        self._setweights()
        return self.module(*args)


class VariationalLSTM(nn.Module):
    def __init__(self, n_in=4, n_hid=6, n_out=2):
        super().__init__()
        self.cell = WeightDropout(nn.LSTMCell(n_in, n_hid), weight_p=0.5)
        self.out = nn.Linear(n_hid, n_out)

    def forward(self, x):
        h = c = x.new_zeros(x.size(1), self.out.in_features)
        for t in range(x.size(0)):
            h, c = self.cell(x[t], (h, c))
        return self.out(h)


model = VariationalLSTM()
x = torch.randn(3, 2, 4)
print("output shape", model(x).shape)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
for _ in range(2):
    optimizer.zero_grad()
    model(x).pow(2).mean().backward()
    optimizer.step()
