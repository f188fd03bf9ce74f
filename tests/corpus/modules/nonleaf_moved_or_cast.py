# torch: TypeError: unsupported operand type(s) for *: 'float' and 'NoneType'
# Weights made with requires_grad=True and then moved or cast (`.to(torch.float64)`,
# `.cuda()`, `.to("cuda")`): the leaf is the tensor before the move, the name holds a
# copy whose `.grad` backward never fills. In the shape of the reports where `.cuda()` or
# `.to(device)` after requires_grad=True broke training on the GPU
# (mazzzystar/randomCNN-voice-transfer#16, vinsis/ternary-quantization#4,
# Maghoumi/pytorch-softdtw-cuda#25); the dtype cast shows the same on the CPU.
import torch

w = torch.randn(3, 1, requires_grad=True).to(torch.float64)
x = torch.randn(5, 3, dtype=torch.float64)
for step in range(2):
    loss = (x @ w).pow(2).mean()
    loss.backward()
    with torch.no_grad():
        w -= 0.1 * w.grad  # expect: GL206


def gpu_weights(n):
    scale = torch.ones(n, requires_grad=True).cuda()
    shift = torch.zeros(n, requires_grad=True).to("cuda:0")
    return torch.optim.Adam([scale, shift], lr=1e-3)  # expect: GL206
