# source: https://github.com/sniklaus/softmax-splatting/issues/50
# expect: clean
import torch
import torch.nn as nn


class _FunctionSoftsplat(torch.autograd.Function):
    @staticmethod
    def forward(self, tenIn, tenFlow):
        self.save_for_backward(tenIn.clone(), tenFlow.clone())
        shift = tenFlow.mean(dim=1, keepdim=True)
        return tenIn * torch.sigmoid(shift)

    @staticmethod
    def backward(self, tenOutgrad):
        tenIn, tenFlow = self.saved_tensors
        gate = torch.sigmoid(tenFlow.mean(dim=1, keepdim=True))
        tenIngrad = tenOutgrad * gate
        dshift = (tenOutgrad * tenIn).sum(dim=1, keepdim=True) * gate * (1 - gate)
        tenFlowgrad = dshift.expand_as(tenFlow) / tenFlow.shape[1]
        return tenIngrad, tenFlowgrad


def softsplat(tenIn, tenFlow):
    return _FunctionSoftsplat.apply(tenIn, tenFlow)


class Synthesis(nn.Module):
    def __init__(self):
        super().__init__()
        self.netFlow = nn.Conv2d(6, 2, 3, padding=1)
        self.netRefine = nn.Conv2d(3, 3, 3, padding=1)

    def forward(self, tenOne, tenTwo, levels=2):
        tenFlow = self.netFlow(torch.cat([tenOne, tenTwo], 1))
        tenWarp = tenOne
        outputs = []
        for _ in range(levels):
            tenWarp = softsplat(tenWarp, tenFlow)
            outputs.append(self.netRefine(tenWarp))
            tenFlow.mul_(0.5)
        return sum(outputs)


net = Synthesis()
optimizer = torch.optim.Adam(net.parameters(), lr=1e-4)
tenOne, tenTwo, tenGt = torch.rand(1, 3, 8, 8), torch.rand(1, 3, 8, 8), torch.rand(1, 3, 8, 8)
optimizer.zero_grad()
loss = (net(tenOne, tenTwo) - tenGt).abs().mean()
loss.backward()
optimizer.step()
