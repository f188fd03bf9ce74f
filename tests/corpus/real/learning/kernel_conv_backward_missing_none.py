# source: https://github.com/sczhou/STFAN/issues/8
# expect: function KernelConv2DFunctionBackward returned an incorrect number of gradients (expected 3, got 2)
# buggy-line: 29
import torch
import torch.nn as nn
import torch.nn.functional as F


class KernelConv2DFunction(torch.autograd.Function):
    """per-pixel filtering: every pixel has its own k x k kernel"""

    @staticmethod
    def forward(ctx, input, kernel, kernel_size):
        ctx.kernel_size = kernel_size
        ctx.save_for_backward(input, kernel)
        n, c, h, w = input.shape
        patches = F.unfold(input, kernel_size, padding=kernel_size // 2).view(n, c, kernel_size * kernel_size, h, w)
        return (patches * kernel.unsqueeze(1)).sum(2)

    @staticmethod
    def backward(ctx, grad_output):
        input, kernel = ctx.saved_tensors
        k = ctx.kernel_size
        n, c, h, w = input.shape
        patches = F.unfold(input, k, padding=k // 2).view(n, c, k * k, h, w)
        grad_kernel = (patches * grad_output.unsqueeze(2)).sum(1)
        grad_patches = (kernel.unsqueeze(1) * grad_output.unsqueeze(2)).view(n, c * k * k, h * w)
        grad_input = F.fold(grad_patches, (h, w), k, padding=k // 2)
        return grad_input, grad_kernel


class KernelConv2D(nn.Module):
    def __init__(self, kernel_size=3):
        super().__init__()
        self.kernel_size = kernel_size

    def forward(self, input, kernel):
        return KernelConv2DFunction.apply(input, kernel, self.kernel_size)


kernel_net = nn.Conv2d(3, 9, 3, padding=1)
kconv = KernelConv2D(3)
blurry = torch.randn(1, 3, 5, 5)
sharp = kconv(blurry, kernel_net(blurry))
F.mse_loss(sharp, torch.randn(1, 3, 5, 5)).backward()
