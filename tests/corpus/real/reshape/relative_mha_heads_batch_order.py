# source: https://github.com/gazelle93/Transformer-Various-Positional-Encoding/issues/1
# expect: silent: the heads are merged batch-major and split back head-major: each output row mixes other positions' head outputs
# buggy-line: 33
# mechanism: query is merged as (batch * heads) from (batch, heads, ...); the output is split back as (heads, batch, ...), the opposite factor order
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class RelativeMultiHeadAttention(nn.Module):
    def __init__(self, d_model=32, num_heads=4):
        super().__init__()
        self.d_model = d_model
        self.num_heads = num_heads
        self.head_dim = d_model // num_heads
        self.query_proj = nn.Linear(d_model, d_model)
        self.key_proj = nn.Linear(d_model, d_model)
        self.value_proj = nn.Linear(d_model, d_model)
        self.out_proj = nn.Linear(d_model, d_model)

    def forward(self, query, key, value):
        batch_size = query.size(0)
        query = self.query_proj(query).view(batch_size, -1, self.num_heads, self.head_dim).transpose(1, 2)
        key = self.key_proj(key).view(batch_size, -1, self.num_heads, self.head_dim).transpose(1, 2)
        value = self.value_proj(value).view(batch_size, -1, self.num_heads, self.head_dim).transpose(1, 2)
        query = query.reshape(batch_size * self.num_heads, -1, self.head_dim)
        key = key.reshape(batch_size * self.num_heads, -1, self.head_dim)
        value = value.reshape(batch_size * self.num_heads, -1, self.head_dim)

        output, attn_score = self.relative_scaled_dot_attn(query, key, value)
        output = output.view(self.num_heads, batch_size, -1, self.head_dim)
        output = self.reshape_to_concat(batch_size, output)
        return self.out_proj(output), attn_score

    def relative_scaled_dot_attn(self, query, key, value):
        score = torch.bmm(query, key.transpose(1, 2)) / math.sqrt(self.head_dim)
        attn = F.softmax(score, -1)
        return torch.bmm(attn, value), attn

    def reshape_to_concat(self, batch_size, _tensor):
        # before shape: (batch size, number of heads, input length, head dimension)
        _tensor = _tensor.permute(0, 2, 1, 3)
        return _tensor.contiguous().view(batch_size, -1, self.num_heads * self.head_dim)


mha = RelativeMultiHeadAttention()
x = torch.randn(2, 5, 32)
out, _ = mha(x, x, x)
order = [1, 0, 2, 3, 4]  # attention without positions: swapping two tokens swaps their outputs
swapped, _ = mha(x[:, order], x[:, order], x[:, order])
assert not torch.allclose(swapped, out[:, order], atol=1e-6)  # positions are scrambled
