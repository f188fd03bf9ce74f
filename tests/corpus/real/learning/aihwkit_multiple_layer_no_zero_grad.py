# source: https://github.com/IBM/aihwkit/issues/446
# expect: silent: the example's loop never clears the gradients: each opt.step() applies the sum of every earlier epoch's gradient, so the loss decreases then climbs again
# buggy-line: 61
"""aihwkit example 2: network with multiple layers.

Network that consists of multiple analog layers. It aims to learn to sum all
the elements from one array.
"""
# pylint: disable=invalid-name

# Imports from PyTorch.
import copy

import torch
from torch import Tensor
from torch.nn.functional import mse_loss
from torch.nn import Linear, Sequential
from torch.optim import SGD


# stand-ins for aihwkit.nn.AnalogLinear, aihwkit.optim.AnalogSGD and the rpu config
class AnalogLinear(Linear):
    def __init__(self, in_features, out_features, bias=True, rpu_config=None):
        super().__init__(in_features, out_features, bias=bias)
        self.rpu_config = rpu_config


class AnalogSGD(SGD):
    def regroup_param_groups(self, model):
        return None


class SingleRPUConfig:
    def __init__(self, device=None):
        self.device = device


torch.manual_seed(0)
# Prepare the datasets (input and expected output).
x_b = Tensor([[0.1, 0.2, 0.0, 0.0], [0.2, 0.4, 0.0, 0.0]])
y_b = Tensor([[0.3], [0.6]])

# Define a multiple-layer network, using a constant step device type.
model = Sequential(
    AnalogLinear(4, 2, bias=False, rpu_config=SingleRPUConfig(device="ConstantStepDevice")),
    AnalogLinear(2, 2, bias=False, rpu_config=SingleRPUConfig(device="ConstantStepDevice")),
    AnalogLinear(2, 1, bias=False, rpu_config=SingleRPUConfig(device="ConstantStepDevice")),
)
init = copy.deepcopy(model.state_dict())

# Define an analog-aware optimizer, preparing it for using the layers.
opt = AnalogSGD(model.parameters(), lr=0.5)
opt.regroup_param_groups(model)

for epoch in range(10):
    # Add the training Tensor to the model (input).
    pred = model(x_b)
    # Add the expected output Tensor.
    loss = mse_loss(pred, y_b)
    # Run training (backward propagation).
    loss.backward()

    opt.step()
    print("Loss error: {:.16f}".format(loss))

reference = copy.deepcopy(model)
reference.load_state_dict(init)
ref_opt = SGD(reference.parameters(), lr=0.5)
for epoch in range(10):
    ref_opt.zero_grad()
    mse_loss(reference(x_b), y_b).backward()
    ref_opt.step()
# the effect: the accumulated gradients move the weights elsewhere
assert not torch.allclose(model[0].weight, reference[0].weight)
