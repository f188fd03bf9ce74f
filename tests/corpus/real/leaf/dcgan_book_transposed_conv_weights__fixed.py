# source: https://github.com/YutaroOgawa/pytorch_advanced/issues/160
# expect: clean
import torch
import torch.nn as nn

input = torch.tensor([[[[1.0, 2.0], [3.0, 4.0]]]])

print("normal convolution")
m = nn.Conv2d(1, 1, 2, stride=1, bias=False)
m.weight.data[0, 0, 0, 0] = 1
m.weight.data[0, 0, 0, 1] = 2
m.weight.data[0, 0, 1, 0] = 3
m.weight.data[0, 0, 1, 1] = 4
print(m(input))

print("transposed convolution")
mt = nn.ConvTranspose2d(1, 1, 2, stride=1, bias=False)
mt.weight.data[0, 0, 0, 0] = 1
mt.weight.data[0, 0, 0, 1] = 2
mt.weight.data[0, 0, 1, 0] = 3
mt.weight.data[0, 0, 1, 1] = 4
print(mt(input))
