# source: https://github.com/idiap/fast-transformers/pull/10
# expect: clean
# mechanism: the recurrent attention keeps its state (Si, Zi) between calls and updates it with +=, editing the tensors the previous step's einsum saved
import torch
import torch.nn as nn
from torch.nn import functional as F


def elu_feature_map(x):
    return F.elu(x) + 1


class RecurrentLinearAttention(nn.Module):
    def __init__(self, query_dimensions, feature_map=None, eps=1e-6):
        super(RecurrentLinearAttention, self).__init__()
        self.feature_map = feature_map or elu_feature_map
        self.eps = eps

    def forward(self, query, key, value, state=None, memory=None):
        Q = self.feature_map(query)
        K = self.feature_map(key)
        N, H, D = Q.shape
        _, _, M = value.shape
        if state is None:
            Si = query.new_zeros((N, H, D, M))
            Zi = query.new_zeros((N, H, D))
        else:
            Si, Zi = state
        Zi = Zi + K
        Si = Si + torch.einsum("nhd,nhm->nhdm", K, value)
        Z = 1.0 / (torch.einsum("nhd,nhd->nh", Q, Zi) + self.eps)
        V = torch.einsum("nhd,nhdm,nh->nhm", Q, Si, Z)
        return V, [Si, Zi]


class RecurrentEncoder(nn.Module):
    def __init__(self, d_model=8, n_heads=2):
        super().__init__()
        self.n_heads = n_heads
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.attention = RecurrentLinearAttention(d_model // n_heads)
        self.out = nn.Linear(d_model, d_model)

    def forward(self, x, state=None):
        N, E = x.shape
        q, k, v = self.qkv(x).view(N, 3, self.n_heads, -1).unbind(1)
        v_out, state = self.attention(q, k, v, state)
        return self.out(v_out.reshape(N, E)), state


encoder = RecurrentEncoder()
sequence = torch.randn(4, 3, 8)
state = None
outputs = []
for t in range(sequence.shape[0]):
    y, state = encoder(sequence[t], state)
    outputs.append(y)
loss = torch.stack(outputs).pow(2).mean()
loss.backward()
