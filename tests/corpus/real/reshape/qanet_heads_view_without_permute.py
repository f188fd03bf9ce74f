# source: https://github.com/hackiey/QAnet-pytorch/issues/2
# expect: silent: heads (n_heads, batch, l, value_dim) are viewed as (batch, l, -1) without moving the heads dim: each position's vector holds other heads' and positions' values
# buggy-line: 39
# mechanism: a tensor laid out (n_heads, batch_size, l, value_dim) is viewed as (batch_size, l, n_heads * value_dim): the heads dim is merged with value_dim across batch and l
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

device = torch.device("cpu")


class SelfAttention(nn.Module):
    def __init__(self, n_heads, hidden_size):
        super(SelfAttention, self).__init__()
        self.n_heads = n_heads
        self.hidden_size = hidden_size
        self.key_dim = hidden_size // n_heads
        self.value_dim = hidden_size // n_heads
        self.queries = nn.ModuleList([nn.Linear(hidden_size, self.key_dim) for _ in range(n_heads)])
        self.keys = nn.ModuleList([nn.Linear(hidden_size, self.key_dim) for _ in range(n_heads)])
        self.values = nn.ModuleList([nn.Linear(hidden_size, self.value_dim) for _ in range(n_heads)])
        self.fc = nn.Linear(n_heads * self.value_dim, hidden_size)

    def forward(self, x, mask):
        batch_size, l, hidden_size = x.size()
        heads = torch.zeros(self.n_heads, batch_size, l, self.value_dim, device=device)

        for i in range(self.n_heads):
            Q = self.queries[i](x)
            K = self.keys[i](x)
            V = self.values[i](x)
            tmp = torch.bmm(Q, K.permute(0, 2, 1)) / math.sqrt(self.key_dim)
            tmp = tmp.masked_fill(mask.unsqueeze(1) == 0, -1e30)
            tmp = F.softmax(tmp, dim=2)
            heads[i] = torch.bmm(tmp, V)

        x = heads.view(batch_size, l, -1)
        x = self.fc(x)
        return x


torch.manual_seed(0)
attention = SelfAttention(n_heads=2, hidden_size=8)
x = torch.randn(2, 4, 8)
mask = torch.ones(2, 4)
out = attention(x, mask)
# the effect: batch item 0's output depends on batch item 1's input
x2 = x.clone()
x2[1] += 1.0
assert not torch.allclose(attention(x2, mask)[0], out[0])
