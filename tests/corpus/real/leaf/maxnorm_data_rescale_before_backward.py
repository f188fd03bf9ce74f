# source: https://github.com/ShusenTang/Dive-into-DL-PyTorch/issues/126
# expect: silent: the max-norm rescale through `.data` happens after the forward pass and before backward, so the weight gradient is computed with the rescaled values instead of the ones the loss used
# buggy-line: 22
# also-line: 29
# mechanism: `w.data *= factor` on a Parameter between building the loss (which saved `w` for `w ** 2`) and calling backward()
import torch
import torch.nn as nn


class QuadraticNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.tensor([3.0]))

    def forward(self, x):
        return (self.w**2 * x).sum()


def max_norm_(param, max_norm=1.0):
    norm = param.data.norm()
    if norm > max_norm:
        param.data *= max_norm / norm


def grad_after_step(apply_constraint_early):
    net = QuadraticNet()
    loss = net(torch.ones(1))
    if apply_constraint_early:
        max_norm_(net.w)
    loss.backward()
    return net.w.grad.clone()


wrong = grad_after_step(apply_constraint_early=True)
right = QuadraticNet()
right(torch.ones(1)).backward()
assert not torch.allclose(wrong, right.w.grad)
