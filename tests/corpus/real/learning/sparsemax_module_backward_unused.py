# source: https://github.com/KrisKorrel/sparsemax-pytorch/issues/5
# expect: silent: nn.Module.backward is never called by autograd: the gradient is autograd's, not the sparsemax Jacobian written here
# buggy-line: 25
import torch
import torch.nn as nn


class Sparsemax(nn.Module):
    def __init__(self, dim=-1):
        super().__init__()
        self.dim = dim
        self.backward_calls = 0

    def forward(self, input):
        z, _ = torch.sort(input, dim=self.dim, descending=True)
        k = torch.arange(1, input.size(self.dim) + 1, dtype=input.dtype)
        bound = 1 + k * z
        cumsum = z.cumsum(self.dim)
        is_gt = (bound > cumsum).to(input.dtype)
        kz = (is_gt * k).max(self.dim, keepdim=True)[0]
        taus = ((is_gt * z).sum(self.dim, keepdim=True) - 1) / kz
        self.output = torch.clamp(input - taus, min=0)
        return self.output

    def backward(self, grad_output):
        self.backward_calls += 1
        nonzeros = torch.ne(self.output, 0).to(grad_output.dtype)
        s = (grad_output * nonzeros).sum(self.dim, keepdim=True) / nonzeros.sum(self.dim, keepdim=True)
        self.grad_input = nonzeros * (grad_output - s)
        return self.grad_input


sparsemax = Sparsemax(dim=1)
scores = nn.Linear(5, 4)
x = torch.randn(3, 5)
out = sparsemax(scores(x))
out[:, 0].sum().backward()
assert sparsemax.backward_calls == 0
