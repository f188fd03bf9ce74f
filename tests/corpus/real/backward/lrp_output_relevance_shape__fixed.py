# source: https://github.com/chr5tphr/zennit/issues/58
# expect: clean
import torch
import torch.nn as nn


class UNetLike(nn.Module):
    def __init__(self, in_ch=4):
        super().__init__()
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
with torch.no_grad():
    output = model(data)
output_relevance = torch.zeros_like(output)  # shaped like the output, (1, 1, 8, 8)
output_relevance[:, -1, :, :] = 1.0
output, relevance = attributor(data, output_relevance)
print(relevance.sum(1).shape)
