# source: https://stackoverflow.com/questions/54754153/autograd-grad-for-tensor-in-pytorch/54757383
# expect: grad can be implicitly created only for scalar outputs
# buggy-line: 22
import torch
import torch.nn as nn
from torch.autograd import grad

batch_size, m, n = 4, 10, 6

net = nn.Sequential(
    nn.Unflatten(1, (1, m)),
    nn.Conv1d(1, 3, 3, padding=1),
    nn.ReLU(),
    nn.Flatten(),
    nn.Linear(3 * m, n),
)

X = torch.randn(batch_size, m, requires_grad=True)
Y = net(X)  # (batch_size, n)

# dY/dX to build a new loss term, like tf.gradients(ys=Y, xs=X)
dY_dX = grad(outputs=Y, inputs=X, create_graph=True)[0]
penalty = dY_dX.pow(2).sum(dim=1).mean()
penalty.backward()
