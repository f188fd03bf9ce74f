# torch: raises one of the variables needed for gradient computation has been modified by an inplace operation
# An activation observer refreshes its scale buffer in place (under no_grad) at the start
# of every forward; the first chunk's division saved the scale, and the second chunk's
# forward overwrites it before the summed backward.
import torch
import torch.nn as nn


class ObservedLinear(nn.Module):
    def __init__(self, n_in=4, n_out=3):
        super().__init__()
        self.fc = nn.Linear(n_in, n_out)
        self.register_buffer("scale", torch.ones(1))

    def forward(self, x):
        with torch.no_grad():
            self.scale.copy_(x.abs().amax().clamp(min=1e-6))  # expect: GL103
        return self.fc(x) / self.scale


layer = ObservedLinear()
chunks = torch.randn(2, 8, 4).unbind(0)
losses = [layer(chunk).pow(2).mean() for chunk in chunks]
torch.stack(losses).sum().backward()
