# source: https://github.com/laekov/fastmoe/issues/49
# expect: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


class NaiveGate(nn.Module):
    def __init__(self, d_model, num_expert):
        super().__init__()
        self.gate = nn.Linear(d_model, num_expert)
        self.loss = None

    def set_loss(self, loss):
        self.loss = loss

    def get_loss(self, clear=True):
        loss = self.loss
        if clear:
            self.loss = None
        return loss

    def forward(self, inp):
        score = F.softmax(self.gate(inp), dim=-1)
        importance = score.sum(0)
        self.set_loss((importance.std() / importance.mean()) ** 2)
        return score


class MoELayer(nn.Module):
    def __init__(self, d_model=6, num_expert=3):
        super().__init__()
        self.gate = NaiveGate(d_model, num_expert)
        self.experts = nn.ModuleList([nn.Linear(d_model, d_model) for _ in range(num_expert)])

    def forward(self, x):
        score = self.gate(x)
        return sum(score[:, i : i + 1] * expert(x) for i, expert in enumerate(self.experts))


def get_balance_loss(model):
    loss_list = [layer.gate.get_loss() for layer in model if isinstance(layer, MoELayer)]
    loss = torch.stack(loss_list).sum()
    return loss


model = nn.Sequential(MoELayer(), MoELayer())
x = torch.randn(8, 6)
out = model(x)
lm_loss = out.pow(2).mean()
balance_loss = get_balance_loss(model)
loss = lm_loss + 0.01 * balance_loss
loss.backward()
gate_grad = model[0].gate.gate.weight.grad.clone()
# the effect: the gate gets the gradient of the task loss alone
model.zero_grad()
model(x).pow(2).mean().backward()
assert not torch.allclose(model[0].gate.gate.weight.grad, gate_grad)
