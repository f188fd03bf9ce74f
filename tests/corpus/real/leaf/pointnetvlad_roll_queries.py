# source: https://github.com/cattaneod/PointNetVlad-Pytorch/issues/4
# expect: a view of a leaf Variable that requires grad is being used in an in-place operation
# buggy-line: 12
# mechanism: a data-augmentation helper assigns `ob[i] = torch.roll(ob[i], ...)` into a batch tensor created with `requires_grad=True`
import numpy as np
import torch
import torch.nn as nn


def process_data(ob, seed):
    for i in range(ob.shape[0]):
        ob[i] = torch.roll(ob[i], seed, dims=1)
    return ob


class PointNetVlad(nn.Module):
    def __init__(self, num_points=16, output_dim=4):
        super().__init__()
        self.point_net = nn.Sequential(nn.Conv1d(3, 8, 1), nn.ReLU(), nn.Conv1d(8, 8, 1))
        self.net_vlad = nn.Linear(8, output_dim)

    def forward(self, x):
        feats = self.point_net(x.squeeze(1).transpose(1, 2))
        return self.net_vlad(feats.max(dim=2)[0])


def run_model(model, queries, positives, negatives):
    feed_tensor = torch.cat((queries, positives, negatives), 1)
    feed_tensor = feed_tensor.view((-1, 1, 16, 3))
    feed_tensor.requires_grad_(True)
    return model(feed_tensor)


model = PointNetVlad()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
queries = torch.tensor(np.random.rand(2, 1, 16, 3).astype(np.float32), requires_grad=True)
positives = torch.rand(2, 2, 16, 3)
negatives = torch.rand(2, 2, 16, 3)
queries = process_data(queries, seed=3)
output = run_model(model, queries, positives, negatives)
loss = output.pow(2).mean()
optimizer.zero_grad()
loss.backward()
optimizer.step()
