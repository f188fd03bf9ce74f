# source: https://github.com/huawei-noah/AdderNet/issues/21
# expect: clean
import math

import torch
import torch.nn as nn


class adder(torch.autograd.Function):
    @staticmethod
    def forward(ctx, W_col, X_col):
        ctx.save_for_backward(W_col, X_col)
        return -(W_col.unsqueeze(2) - X_col.unsqueeze(0)).abs().sum(1)

    @staticmethod
    def backward(ctx, grad_output):
        W_col, X_col = ctx.saved_tensors
        grad_W_col = ((X_col.unsqueeze(0) - W_col.unsqueeze(2)) * grad_output.unsqueeze(1)).sum(2)
        grad_W_col = grad_W_col / grad_W_col.norm(p=2).clamp(min=1e-12) * math.sqrt(W_col.size(1) * W_col.size(0)) / 5
        grad_X_col = (-(X_col.unsqueeze(0) - W_col.unsqueeze(2)).clamp(-1, 1) * grad_output.unsqueeze(1)).sum(0)
        return grad_W_col, grad_X_col


class Adder2D(nn.Module):
    def __init__(self, input_channel, output_channel, kernel_size):
        super().__init__()
        self.adder = nn.Parameter(torch.randn(output_channel, input_channel, kernel_size, kernel_size))

    def forward(self, x):
        n, c, h, w = x.shape
        k = self.adder.size(-1)
        X_col = nn.functional.unfold(x, k).permute(1, 0, 2).reshape(c * k * k, -1)
        W_col = self.adder.view(self.adder.size(0), -1)
        out = adder.apply(W_col, X_col)
        return out.view(self.adder.size(0), n, h - k + 1, w - k + 1).permute(1, 0, 2, 3)


net = nn.Sequential(Adder2D(3, 4, 3), nn.BatchNorm2d(4), nn.Flatten(), nn.Linear(4 * 4 * 4, 10))
optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
loss = nn.functional.cross_entropy(net(torch.randn(2, 3, 6, 6)), torch.tensor([3, 5]))
optimizer.zero_grad()
loss.backward()
optimizer.step()
