# source: https://github.com/pytorch/pytorch/blob/main/torch/optim/swa_utils.py
# expect: clean
# note: parameters of the averaged copy are written with `p.detach().copy_(...)`: the in-place edit goes through a detached alias, outside any no_grad block
import copy
import itertools

import torch
import torch.nn as nn


class AveragedModel(nn.Module):
    def __init__(self, model):
        super().__init__()
        self.module = copy.deepcopy(model)
        self.register_buffer("n_averaged", torch.tensor(0, dtype=torch.long))

    def forward(self, *args, **kwargs):
        return self.module(*args, **kwargs)

    def update_parameters(self, model):
        self_param = itertools.chain(self.module.parameters(), self.module.buffers())
        model_param = itertools.chain(model.parameters(), model.buffers())
        for p_averaged, p_model in zip(self_param, model_param):
            p_model_ = p_model.detach().to(p_averaged.device)
            if self.n_averaged == 0:
                p_averaged.detach().copy_(p_model_)
            else:
                n = self.n_averaged.to(p_averaged.device)
                p_averaged.detach().copy_(p_averaged.detach() + (p_model_ - p_averaged.detach()) / (n + 1))
        self.n_averaged += 1


model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
swa_model = AveragedModel(model)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(3):
    optimizer.zero_grad()
    loss = model(torch.randn(6, 4)).pow(2).mean()
    loss.backward()
    optimizer.step()
    swa_model.update_parameters(model)
print(swa_model(torch.randn(2, 4)))
