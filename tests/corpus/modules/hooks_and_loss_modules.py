# torch: ok
# Methods named like backward that are legitimate: a tensor hook registered by the module,
# and the neural-style-transfer tutorial's loss module whose backward calls autograd.
import torch
import torch.nn as nn


class GradLogger(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.seen = []

    def _on_backward(self, grad):
        self.seen.append(grad.norm())

    def forward(self, x):
        out = self.fc(x)
        out.register_hook(self._on_backward)
        return out


class ContentLoss(nn.Module):
    def __init__(self, target, weight):
        super().__init__()
        self.target = target.detach() * weight
        self.weight = weight
        self.criterion = nn.MSELoss()

    def forward(self, x):
        self.loss = self.criterion(x * self.weight, self.target)
        return x

    def backward(self, retain_graph=True):
        self.loss.backward(retain_graph=retain_graph)
        return self.loss


logger = GradLogger()
logger(torch.randn(2, 4)).sum().backward()
assert len(logger.seen) == 1
content = ContentLoss(torch.randn(2, 4), 2.0)
image = torch.randn(2, 4, requires_grad=True)
content(image)
content.backward()
assert image.grad is not None
