# torch: raises Trying to backward through the graph a second time
# Two losses on one forward, each with its own backward and no retain_graph.
import torch
import torch.nn as nn

model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
features = model(torch.randn(3, 4))
loss_a = features[:, 0].pow(2).mean()
loss_b = features[:, 1].abs().mean()
loss_a.backward()
loss_b.backward()  # expect: GL305
