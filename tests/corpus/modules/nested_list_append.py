# torch: AssertionError: hidden layers appended to a python list are missing from parameters()
# Modelled on pytorch/pytorch#715: [layer, activation] pairs appended to a plain list.
import torch.nn as nn


class SNLINet(nn.Module):
    def __init__(self, n_layers, n_hid):
        super().__init__()
        self.hids = []
        for _ in range(n_layers):
            self.hids.append([nn.Linear(n_hid, n_hid), nn.ReLU()])  # expect: GL502
        self.classifier = nn.Linear(n_hid, 3)

    def forward(self, x):
        for linear, act in self.hids:
            x = act(linear(x))
        return self.classifier(x)


model = SNLINet(2, 8)
names = [name for name, _ in model.named_parameters()]
if names == ["classifier.weight", "classifier.bias"]:
    raise AssertionError("hidden layers appended to a python list are missing from parameters()")
