# source: https://github.com/lululxvi/deepxde/pull/1318
# expect: clean
import torch


def as_tensor(data, dtype=None):
    if isinstance(data, torch.Tensor):
        if dtype is None or data.dtype == dtype:
            return data
        return data.type(dtype=dtype)
    if isinstance(data, (list, tuple)) and all(isinstance(d, torch.Tensor) for d in data):
        return torch.stack(data)
    return torch.as_tensor(data, dtype=dtype)


class FNN(torch.nn.Module):
    def __init__(self, layer_sizes):
        super().__init__()
        self.linears = torch.nn.ModuleList(
            [torch.nn.Linear(layer_sizes[i - 1], layer_sizes[i]) for i in range(1, len(layer_sizes))]
        )
        self.auxiliary_vars = None

    def forward(self, inputs):
        x = inputs
        for linear in self.linears[:-1]:
            x = torch.tanh(linear(x))
        return self.linears[-1](x)


class Model:
    def __init__(self, net, external_trainable_variables):
        self.net = net
        self.external_trainable_variables = external_trainable_variables
        params = list(net.parameters()) + external_trainable_variables
        self.opt = torch.optim.Adam(params, lr=1e-2)

    def train_step(self, inputs, targets):
        self.net.auxiliary_vars = as_tensor(tuple(self.external_trainable_variables))
        outputs = self.net(inputs)
        residual = outputs - self.net.auxiliary_vars.sum() * targets
        loss = residual.pow(2).mean()
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()


C1 = torch.tensor(2.0, requires_grad=True)
C2 = torch.tensor(0.5, requires_grad=True)
model = Model(FNN([1, 8, 1]), [C1, C2])
x = torch.linspace(0, 1, 16).unsqueeze(1)
for _ in range(3):
    model.train_step(x, torch.sin(x))
assert C1.grad is not None and C1.item() != 2.0
