# source: https://github.com/KrisKorrel/sparsemax-pytorch/issues/5
# expect: clean
import torch
import torch.nn as nn


class SparsemaxFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input, dim):
        z, _ = torch.sort(input, dim=dim, descending=True)
        k = torch.arange(1, input.size(dim) + 1, dtype=input.dtype)
        bound = 1 + k * z
        cumsum = z.cumsum(dim)
        is_gt = (bound > cumsum).to(input.dtype)
        kz = (is_gt * k).max(dim, keepdim=True)[0]
        taus = ((is_gt * z).sum(dim, keepdim=True) - 1) / kz
        output = torch.clamp(input - taus, min=0)
        ctx.dim = dim
        ctx.save_for_backward(output)
        return output

    @staticmethod
    def backward(ctx, grad_output):
        (output,) = ctx.saved_tensors
        nonzeros = torch.ne(output, 0).to(grad_output.dtype)
        s = (grad_output * nonzeros).sum(ctx.dim, keepdim=True) / nonzeros.sum(ctx.dim, keepdim=True)
        return nonzeros * (grad_output - s), None


class Sparsemax(nn.Module):
    def __init__(self, dim=-1):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return SparsemaxFunction.apply(input, self.dim)


sparsemax = Sparsemax(dim=1)
scores = nn.Linear(5, 4)
x = torch.randn(3, 5)
out = sparsemax(scores(x))
out[:, 0].sum().backward()
assert scores.weight.grad is not None
