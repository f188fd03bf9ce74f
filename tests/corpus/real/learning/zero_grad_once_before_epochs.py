# source: https://github.com/salesforce/corr_based_prediction/issues/1
# expect: silent: zero_grad runs once, before the loop: every step applies the sum of all gradients so far
# buggy-line: 22
# also-line: 19
import copy

import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(5, 1)
init_state = copy.deepcopy(model.state_dict())
batches = [(torch.randn(4, 5), torch.randn(4, 1)) for _ in range(3)]


def train(model, batches, lr=0.1):
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    criterion = nn.MSELoss()
    optimizer.zero_grad()
    for x, y in batches:
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
    return model


train(model, batches)

# the effect: the same data, a gradient cleared at every step, gives other weights
reference = nn.Linear(5, 1)
reference.load_state_dict(init_state)
ref_opt = torch.optim.SGD(reference.parameters(), lr=0.1)
for x, y in batches:
    ref_opt.zero_grad()
    nn.MSELoss()(reference(x), y).backward()
    ref_opt.step()
assert not torch.allclose(model.weight, reference.weight)
