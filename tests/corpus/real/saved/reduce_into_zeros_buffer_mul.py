# source: https://github.com/pytorch/pytorch/issues/74874
# expect: one of the variables needed for gradient computation has been modified by an inplace operation
# buggy-line: 16
# also-line: 17
# mechanism: op=torch.mul saves its operands tensor[0], tensor[1] (views of one buffer); the next slot assignments bump the buffer's version
import torch
from torch import Tensor


def reduce(x: Tensor, y: Tensor, z: Tensor, op) -> Tensor:
    tensor = torch.zeros((5,), dtype=torch.float32, requires_grad=False)
    tensor[0] = x
    tensor[1] = y
    tensor[3] = z

    tensor[2] = op(tensor[0], tensor[1])
    tensor[4] = op(tensor[2], tensor[3])
    return tensor[4]


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
