# source: https://github.com/chr5tphr/zennit/issues/58
# expect: Mismatch in shape: grad_output[0] has a shape of torch.Size([1, 1, 12, 12]) and output[0] has a shape of torch.Size([1, 1, 8, 8])
# buggy-line: 38
# mechanism: a gradient shaped like the input handed by the caller (line 38) to a helper's `autograd.grad(grad_outputs=...)`: found inside the helper at the grad call (line 29, where torch raises); naming the call site needs findings in an inlined callee that depend on the caller's arguments to be reported at the call
import torch
import torch.nn as nn


class UNetLike(nn.Module):
    def __init__(self, in_ch=4):
        super().__init__()
        # valid convolutions: every layer shrinks the map by 2 pixels
        self.enc = nn.Sequential(nn.Conv2d(in_ch, 6, 3), nn.ReLU(), nn.Conv2d(6, 6, 3), nn.ReLU())
        self.head = nn.Conv2d(6, 1, 1)

    def forward(self, x):
        return torch.sigmoid(self.head(self.enc(x)))


class Gradient:
    """attribution = d(output)/d(input), seeded with an output relevance"""

    def __init__(self, model):
        self.model = model

    def __call__(self, input, attr_output):
        input = input.detach().requires_grad_(True)
        output = self.model(input)
        (relevance,) = torch.autograd.grad((output,), (input,), grad_outputs=(attr_output,))
        return output, relevance


model = UNetLike()
data = torch.randn(1, 4, 12, 12)
attributor = Gradient(model)
output_relevance = torch.zeros_like(data[:, :1])  # shaped like the input, (1, 1, 12, 12)
output_relevance[:, -1, :, :] = 1.0
output, relevance = attributor(data, output_relevance)
print(relevance.sum(1).shape)
