# source: https://github.com/evanmy/sae/issues/5
# expect: function EnforcePriorBackward returned an incorrect number of gradients (expected 2, got 1)
# buggy-line: 17
import torch
import torch.nn as nn


class EnforcePrior(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input, prior):
        ctx.save_for_backward(prior)
        return input * prior

    @staticmethod
    def backward(ctx, grad_output):
        (prior,) = ctx.saved_tensors
        return grad_output * prior


class SAE(nn.Module):
    def __init__(self, n_labels=4):
        super().__init__()
        self.seg = nn.Conv2d(1, n_labels, 3, padding=1)

    def forward(self, x, prior):
        probs = torch.softmax(self.seg(x), dim=1)
        return EnforcePrior.apply(probs, prior)


model = SAE()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
x, prior = torch.randn(2, 1, 6, 6), torch.rand(2, 4, 6, 6)
loss = -(model(x, prior) + 1e-6).log().mean()
optimizer.zero_grad()
loss.backward()
optimizer.step()
