"""A submodule's forward argument is whatever its parent passes: here an edge index of
shape (2, E) built by a knn helper, so `view(2, -1, num)` splits the pairs, not a batch.
Shape of lightaime/deep_gcns_torch gcn_lib/sparse/torch_edge.py (Dilated, DilatedKnnGraph).
"""

import torch
from torch import nn


class Dilated(nn.Module):
    """
    Find dilated neighbor from neighbor list
    """

    def __init__(self, k=9, dilation=1, stochastic=False, epsilon=0.0):
        super(Dilated, self).__init__()
        self.dilation = dilation
        self.stochastic = stochastic
        self.epsilon = epsilon
        self.k = k

    def forward(self, edge_index, batch=None):
        if self.stochastic:
            if torch.rand(1) < self.epsilon and self.training:
                num = self.k * self.dilation
                randnum = torch.randperm(num)[: self.k]
                edge_index = edge_index.view(2, -1, num)
                edge_index = edge_index[:, :, randnum]
                return edge_index.view(2, -1)
            else:
                edge_index = edge_index[:, :: self.dilation]
        else:
            edge_index = edge_index[:, :: self.dilation]
        return edge_index


def knn_graph_matrix(x, k=16, batch=None):
    dist = torch.cdist(x, x)
    _, nn_idx = torch.topk(-dist, k=k)
    center_idx = torch.arange(0, x.shape[0]).repeat_interleave(k)
    return torch.stack((nn_idx.flatten(), center_idx), dim=0)


class DilatedKnnGraph(nn.Module):
    def __init__(self, k=9, dilation=1, stochastic=False, epsilon=0.0, knn="matrix"):
        super(DilatedKnnGraph, self).__init__()
        self.dilation = dilation
        self.k = k
        self._dilated = Dilated(k, dilation, stochastic, epsilon)
        self.knn = knn_graph_matrix

    def forward(self, x, batch):
        edge_index = self.knn(x, self.k * self.dilation, batch)
        return self._dilated(edge_index, batch)


graph = DilatedKnnGraph(k=4, dilation=2, stochastic=True, epsilon=1.0)
edges = graph(torch.randn(20, 3), torch.zeros(20, dtype=torch.long))
assert edges.shape == (2, 80)
