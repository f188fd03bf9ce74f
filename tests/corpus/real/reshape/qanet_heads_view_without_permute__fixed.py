# source: https://github.com/hackiey/QAnet-pytorch/issues/2
# expect: clean
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

        x = heads.permute(1, 2, 0, 3).contiguous().view(batch_size, l, -1)
        x = self.fc(x)
        return x


torch.manual_seed(0)
attention = SelfAttention(n_heads=2, hidden_size=8)
x = torch.randn(2, 4, 8)
mask = torch.ones(2, 4)
out = attention(x, mask)
x2 = x.clone()
x2[1] += 1.0
assert torch.allclose(attention(x2, mask)[0], out[0])
