# torch: raises element 0 of tensors does not require grad and does not have a grad_fn
# forward() returns a detached tensor: no parameter can receive a gradient.
import torch
import torch.nn as nn


class Regressor(nn.Module):
    def __init__(self):
        super().__init__()
        self.hidden = nn.Linear(3, 8)
        self.head = nn.Linear(8, 1)

    def forward(self, x):
        h = torch.relu(self.hidden(x))
        out = self.head(h).data  # expect: GL202
        return out


model = Regressor()
loss = nn.functional.mse_loss(model(torch.randn(4, 3)), torch.randn(4, 1))
loss.backward()
