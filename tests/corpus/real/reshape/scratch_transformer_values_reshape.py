# source: https://github.com/jsbaan/transformer-from-scratch/pull/6
# expect: silent: token 0's output embedding holds chunks of other positions: under a causal mask, token 1 changes the output at position 0
# buggy-line: 29
# mechanism: values is (batch, heads, seq_len, qkv_dim); reshape(batch, seq_len, hidden_dim) without moving heads next to qkv_dim mixes positions
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class MultiHeadAttention(nn.Module):
    def __init__(self, hidden_dim: int, num_heads: int):
        super().__init__()
        assert hidden_dim % num_heads == 0
        self.qkv_dim = hidden_dim // num_heads
        self.hidden_dim = hidden_dim
        self.num_heads = num_heads
        self.qkv_proj = nn.Linear(hidden_dim, 3 * num_heads * self.qkv_dim, bias=False)
        self.o_proj = nn.Linear(num_heads * self.qkv_dim, hidden_dim, bias=False)

    def forward(self, x, future_mask=None):
        batch_size, sequence_length, hidden_dim = x.size()
        qkv = self.qkv_proj(x)
        qkv = qkv.reshape(batch_size, sequence_length, self.num_heads, 3 * self.qkv_dim)
        qkv = qkv.permute(0, 2, 1, 3)
        q, k, v = torch.chunk(qkv, 3, dim=-1)
        values, attn = self.scaled_dot_product(q, k, v, future_mask)
        values = values.reshape(batch_size, sequence_length, hidden_dim)
        output = self.o_proj(values)
        return output

    def scaled_dot_product(self, q, k, v, future_mask=None):
        attn_logits = torch.matmul(q, torch.transpose(k, -2, -1)) / math.sqrt(q.size()[-1])
        if future_mask is not None:
            attn_logits = attn_logits.masked_fill(future_mask == 0, float("-inf"))
        attention = F.softmax(attn_logits, dim=-1)
        values = torch.matmul(attention, v)
        return values, attention


mha = MultiHeadAttention(hidden_dim=8, num_heads=2)
tokens = torch.randn(1, 4, 8)
causal = torch.tril(torch.ones(4, 4))
out = mha(tokens, future_mask=causal)
later = tokens.clone()
later[:, 1] += 1.0  # a later token changes
out2 = mha(later, future_mask=causal)
assert not torch.allclose(out[:, 0], out2[:, 0])  # position 0 saw the future
