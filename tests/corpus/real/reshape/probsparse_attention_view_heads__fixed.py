# source: https://github.com/zhouhaoyi/Informer2020/issues/59
# expect: clean
import torch
import torch.nn as nn


class AttentionLayer(nn.Module):
    def __init__(self, d_model=8, n_heads=2):
        super().__init__()
        self.n_heads = n_heads
        self.query_projection = nn.Linear(d_model, d_model)
        self.key_projection = nn.Linear(d_model, d_model)
        self.value_projection = nn.Linear(d_model, d_model)

    def forward(self, queries, keys, values):
        B, L, _ = queries.shape
        H = self.n_heads
        queries = self.query_projection(queries).view(B, L, H, -1)
        keys = self.key_projection(keys).view(B, L, H, -1)
        values = self.value_projection(values).view(B, L, H, -1)
        return self.inner_attention(queries, keys, values), queries


class ProbAttentionLayer(AttentionLayer):
    def inner_attention(self, queries, keys, values):
        B, L_Q, H, D = queries.shape
        queries = queries.transpose(2, 1)
        keys = keys.transpose(2, 1)
        values = values.transpose(2, 1)
        scores = torch.softmax(queries @ keys.transpose(-2, -1) / D**0.5, dim=-1)
        self.heads = queries
        return scores @ values


torch.manual_seed(0)
layer = ProbAttentionLayer()
x = torch.randn(2, 5, 8)
out, q_blhd = layer(x, x, x)
out.sum().backward()
assert torch.equal(layer.heads[:, 0], q_blhd[:, :, 0])
