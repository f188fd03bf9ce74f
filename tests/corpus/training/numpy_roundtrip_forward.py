# torch: raises element 0 of tensors does not require grad and does not have a grad_fn
# A numpy detour inside forward cuts the graph: the first layer never trains.
import numpy as np
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(3, 4)

    def forward(self, x):
        x = self.fc1(x)
        x = np.tanh(x.detach().numpy())  # expect: GL201
        return torch.from_numpy(x)


loss = Net()(torch.randn(2, 3)).sum()
loss.backward()
