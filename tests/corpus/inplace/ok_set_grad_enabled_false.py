# Parameter surgery after torch.set_grad_enabled(False).
import torch


def shrink(w):
    torch.set_grad_enabled(False)
    w.mul_(0.5)
    torch.set_grad_enabled(True)
    return w


w = torch.randn(3, requires_grad=True)
shrink(w)
(w * 2).sum().backward()
