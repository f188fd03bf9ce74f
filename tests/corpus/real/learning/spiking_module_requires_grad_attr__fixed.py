# source: https://github.com/fangwei123456/spikingjelly/issues/280
# expect: clean
import torch
import torch.nn as nn


class ParametricLIFNode(nn.Module):
    def __init__(self, init_tau=2.0):
        super().__init__()
        self.w = nn.Parameter(torch.tensor(-torch.log(torch.tensor(init_tau - 1.0)).item()))

    def forward(self, x):
        return torch.sigmoid(self.w) * x


class SNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv2 = nn.Conv2d(2, 4, kernel_size=3, stride=1, padding=1, bias=False)
        self.bntt2 = nn.ModuleList([nn.BatchNorm2d(4, eps=1e-4, momentum=0.1) for i in range(2)])
        self.lif2 = ParametricLIFNode()
        self.lif2.requires_grad_(False)

    def forward(self, x, t=0):
        return self.lif2(self.bntt2[t](self.conv2(x)))


net = SNN()
tau_before = net.lif2.w.detach().clone()
optimizer = torch.optim.Adam(net.parameters(), lr=0.1)
loss = net(torch.randn(2, 2, 4, 4)).pow(2).mean()
optimizer.zero_grad()
loss.backward()
optimizer.step()
assert torch.equal(net.lif2.w, tau_before)
