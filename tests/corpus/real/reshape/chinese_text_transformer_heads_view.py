# source: https://github.com/649453932/Chinese-Text-Classification-Pytorch/issues/53
# expect: silent: Q, K, V (batch, pad_size, dim_model) are viewed as (batch * num_head, -1, dim_head) without moving the heads dim: each head's rows mix positions, and the context is merged back the same way
# buggy-line: 45
# also-line: 46
# also-line: 47
# also-line: 53
# mechanism: splitting dim_model into heads and merging them into the batch dim in one view, across the sequence dim
import torch
import torch.nn as nn
import torch.nn.functional as F


class Scaled_Dot_Product_Attention(nn.Module):
    def __init__(self):
        super(Scaled_Dot_Product_Attention, self).__init__()

    def forward(self, Q, K, V, scale=None):
        attention = torch.matmul(Q, K.permute(0, 2, 1))
        if scale:
            attention = attention * scale
        attention = F.softmax(attention, dim=-1)
        context = torch.matmul(attention, V)
        return context


class Multi_Head_Attention(nn.Module):
    def __init__(self, dim_model, num_head, dropout=0.0):
        super(Multi_Head_Attention, self).__init__()
        self.num_head = num_head
        assert dim_model % num_head == 0
        self.dim_head = dim_model // self.num_head
        self.fc_Q = nn.Linear(dim_model, num_head * self.dim_head)
        self.fc_K = nn.Linear(dim_model, num_head * self.dim_head)
        self.fc_V = nn.Linear(dim_model, num_head * self.dim_head)
        self.attention = Scaled_Dot_Product_Attention()
        self.fc = nn.Linear(num_head * self.dim_head, dim_model)
        self.dropout = nn.Dropout(dropout)
        self.layer_norm = nn.LayerNorm(dim_model)

    def forward(self, x):
        batch_size = x.size(0)
        Q = self.fc_Q(x)
        K = self.fc_K(x)
        V = self.fc_V(x)
        Q = Q.view(batch_size * self.num_head, -1, self.dim_head)
        K = K.view(batch_size * self.num_head, -1, self.dim_head)
        V = V.view(batch_size * self.num_head, -1, self.dim_head)
        # if mask:  # TODO
        #     mask = mask.repeat(self.num_head, 1, 1)  # TODO change this
        scale = K.size(-1) ** -0.5  # 缩放因子
        context = self.attention(Q, K, V, scale)

        context = context.view(batch_size, -1, self.dim_head * self.num_head)
        out = self.fc(context)
        out = self.dropout(out)
        out = out + x  # 残差连接
        out = self.layer_norm(out)
        return out


torch.manual_seed(0)
attention = Multi_Head_Attention(dim_model=8, num_head=2)
x = torch.randn(2, 3, 8)
out = attention(x)
# the effect: attention without positions is permutation-equivariant over tokens; here it is not
order = [1, 0, 2]
assert not torch.allclose(attention(x[:, order]), out[:, order], atol=1e-6)
