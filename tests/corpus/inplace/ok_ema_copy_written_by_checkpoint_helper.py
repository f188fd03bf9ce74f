# wavenet_vocoder's shape: a checkpoint saved between the forward pass and backward()
# builds a fresh model and writes the exponential moving averages into its parameters
# through `.data`. The forward pass never used that model: the trained model's gradient
# is the one of the values it ran with.
import copy

import torch
import torch.nn as nn


class ExponentialMovingAverage:
    def __init__(self, decay):
        self.decay = decay
        self.shadow = {}

    def register(self, name, value):
        self.shadow[name] = value.clone()

    def update(self, name, value):
        self.shadow[name] -= (1.0 - self.decay) * (self.shadow[name] - value)


def build_model():
    return nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))


def clone_as_averaged_model(device, model, ema):
    averaged_model = build_model().to(device)
    averaged_model.load_state_dict(model.state_dict())
    for name, param in averaged_model.named_parameters():
        if name in ema.shadow:
            param.data = ema.shadow[name].clone() * 0.5
    return averaged_model


def save_checkpoint(device, model, ema, checkpoints):
    checkpoints.append(model.state_dict())
    averaged_model = clone_as_averaged_model(device, model, ema)
    checkpoints.append(averaged_model.state_dict())


def train_step(device, model, optimizer, ema, x, y, checkpoints):
    optimizer.zero_grad()
    loss = nn.functional.mse_loss(model(x), y)
    save_checkpoint(device, model, ema, checkpoints)
    loss.backward()
    optimizer.step()
    for name, param in model.named_parameters():
        ema.update(name, param.data)
    return model[0].weight.grad.clone()


torch.manual_seed(0)
device = torch.device("cpu")
model = build_model().to(device)
reference = copy.deepcopy(model)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
ema = ExponentialMovingAverage(0.999)
for name, param in model.named_parameters():
    ema.register(name, param.data)
x, y = torch.randn(8, 4), torch.randn(8, 1)
gradient = train_step(device, model, optimizer, ema, x, y, [])
nn.functional.mse_loss(reference(x), y).backward()
assert torch.allclose(gradient, reference[0].weight.grad)
