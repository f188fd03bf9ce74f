# The positive twin of ok_ema_copy_written_by_checkpoint_helper: the checkpoint helper
# builds the averaged model, then copies its values back into the trained model's
# parameters through `.data`, between the forward pass and backward(): the gradient is
# computed from the averaged weights, not the ones the forward pass used.
import copy

import torch
import torch.nn as nn


def build_model():
    return nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))


def restore_from_averaged(device, model, shadow):
    averaged_model = build_model().to(device)
    averaged_model.load_state_dict(shadow)
    for param, averaged in zip(model.parameters(), averaged_model.parameters()):
        param.data.copy_(averaged.data)  # expect: GL102


def train_step(device, model, optimizer, shadow, x, y):
    optimizer.zero_grad()
    loss = nn.functional.mse_loss(model(x), y)
    restore_from_averaged(device, model, shadow)
    loss.backward()
    return model[0].weight.grad.clone()


torch.manual_seed(0)
device = torch.device("cpu")
model = build_model().to(device)
reference = copy.deepcopy(model)
shadow = {name: value * 0.5 for name, value in model.state_dict().items()}
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(8, 4), torch.randn(8, 1)
gradient = train_step(device, model, optimizer, shadow, x, y)
nn.functional.mse_loss(reference(x), y).backward()
assert torch.allclose(gradient, reference[0].weight.grad), "gradient from the averaged weights"
