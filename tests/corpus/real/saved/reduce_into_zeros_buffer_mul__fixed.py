# source: https://github.com/pytorch/pytorch/issues/74874
# expect: clean
import torch
from torch import Tensor


def reduce(x: Tensor, y: Tensor, z: Tensor, op) -> Tensor:
    tensor = [x.reshape(()), y.reshape(()), None, z.reshape(()), None]

    tensor[2] = op(tensor[0], tensor[1])
    tensor[4] = op(tensor[2], tensor[3])
    return torch.stack([t for t in tensor])[4]


with torch.autograd.set_detect_anomaly(True):
    inputs = [
        torch.randn((1,), requires_grad=True),
        torch.randn((1,), requires_grad=True),
        torch.randn((1,), requires_grad=True),
    ]

    out = reduce(*inputs, op=torch.mul)
    grad = torch.autograd.grad(
        out, inputs, torch.randn_like(out),
    )
    print(f'grad => {grad}')
