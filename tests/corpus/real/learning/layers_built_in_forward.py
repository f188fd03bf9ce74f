# source: https://github.com/pytorch/pytorch/issues/1291
# expect: silent: new Linear layers are made in every forward call: the model has no parameters to train
# buggy-line: 14
import torch

D_in, H, D_out = 10, 8, 2


class ThreeLayerNet(torch.nn.Module):
    def __init__(self, D_in, H, D_out):
        super(ThreeLayerNet, self).__init__()

    def forward(self, x):
        h_relu = torch.nn.Linear(D_in, H)(x).clamp(min=0)
        h_relu = torch.nn.Linear(H, H)(h_relu).clamp(min=0)
        y_pred = torch.nn.Linear(H, D_out)(h_relu)
        return y_pred


model = ThreeLayerNet(D_in, H, D_out)
assert list(model.parameters()) == []
x, y = torch.randn(4, D_in), torch.randn(4, D_out)
loss = torch.nn.functional.mse_loss(model(x), y)
loss.backward()  # runs, and updates nothing anyone keeps
