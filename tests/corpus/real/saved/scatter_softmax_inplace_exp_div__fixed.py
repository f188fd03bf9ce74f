# source: https://github.com/rusty1s/pytorch_scatter/issues/119
# expect: clean
import torch
import torch.nn as nn


def scatter_add(src, index, dim_size):
    return torch.zeros(dim_size, dtype=src.dtype).scatter_add(0, index, src)


def scatter_max(src, index, dim_size):
    out = torch.full((dim_size,), float("-inf"), dtype=src.dtype)
    return out.scatter_reduce(0, index, src, reduce="amax", include_self=True)


def scatter_softmax(src, index, eps=1e-12):
    dim_size = int(index.max()) + 1
    max_value_per_index = scatter_max(src, index, dim_size)
    max_per_src_element = max_value_per_index.gather(0, index)
    recentered_scores = src - max_per_src_element
    recentered_scores_exp = recentered_scores.exp()
    sum_per_index = scatter_add(recentered_scores_exp, index, dim_size)
    normalizing_constants = sum_per_index.add(eps).gather(0, index)
    return recentered_scores_exp.div(normalizing_constants)


class EdgeAttention(nn.Module):
    def __init__(self, dim=4):
        super().__init__()
        self.att = nn.Linear(2 * dim, 1)

    def forward(self, x, edge_index):
        src, dst = edge_index
        scores = self.att(torch.cat([x[src], x[dst]], dim=-1)).squeeze(-1)
        alpha = scatter_softmax(scores, dst)
        return scatter_add(alpha, dst, x.size(0))


torch.manual_seed(0)
layer = EdgeAttention()
x = torch.randn(3, 4)
edge_index = torch.tensor([[0, 1, 0, 1, 2, 1], [0, 1, 0, 1, 2, 1]])
out = torch.sum(layer(x, edge_index) * torch.arange(3.0))
out.backward()
