# source: https://github.com/pytorch/pytorch/issues/1291
# expect: clean
import torch

D_in, H, D_out = 10, 8, 2


class ThreeLayerNet(torch.nn.Module):
    def __init__(self, D_in, H, D_out):
        super(ThreeLayerNet, self).__init__()
        self.linear1 = torch.nn.Linear(D_in, H)
        self.linear2 = torch.nn.Linear(H, H)
        self.linear3 = torch.nn.Linear(H, D_out)

    def forward(self, x):
        h_relu = self.linear1(x).clamp(min=0)
        h_relu = self.linear2(h_relu).clamp(min=0)
        return self.linear3(h_relu)


model = ThreeLayerNet(D_in, H, D_out)
assert len(list(model.parameters())) == 6
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(4, D_in), torch.randn(4, D_out)
loss = torch.nn.functional.mse_loss(model(x), y)
loss.backward()
optimizer.step()
