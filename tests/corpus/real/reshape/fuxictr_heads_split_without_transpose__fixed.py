# source: https://github.com/reczoo/FuxiCTR/issues/30
# expect: clean
import torch
import torch.nn as nn


class ScaledDotProductAttention(nn.Module):
    def __init__(self, dropout_rate=0.0):
        super(ScaledDotProductAttention, self).__init__()
        self.dropout = nn.Dropout(dropout_rate) if dropout_rate > 0 else None

    def forward(self, W_q, W_k, W_v, scale=None, mask=None):
        attention = torch.matmul(W_q, W_k.transpose(-1, -2))
        if scale:
            attention = attention / scale
        attention = attention.softmax(dim=-1)
        output = torch.matmul(attention, W_v)
        return output, attention


class MultiHeadAttention(nn.Module):
    def __init__(self, input_dim, attention_dim=None, num_heads=1, use_scale=False):
        super(MultiHeadAttention, self).__init__()
        if attention_dim is None:
            attention_dim = input_dim // num_heads
        self.attention_dim = attention_dim
        self.output_dim = num_heads * attention_dim
        self.num_heads = num_heads
        self.scale = attention_dim ** 0.5 if use_scale else None
        self.W_q = nn.Linear(input_dim, self.output_dim, bias=False)
        self.W_k = nn.Linear(input_dim, self.output_dim, bias=False)
        self.W_v = nn.Linear(input_dim, self.output_dim, bias=False)
        self.dot_product_attention = ScaledDotProductAttention()

    def forward(self, query, key, value, mask=None):
        batch_size = query.size(0)
        query = self.W_q(query)
        key = self.W_k(key)
        value = self.W_v(value)
        query = query.view(batch_size, -1, self.num_heads, self.attention_dim).transpose(1, 2)
        key = key.view(batch_size, -1, self.num_heads, self.attention_dim).transpose(1, 2)
        value = value.view(batch_size, -1, self.num_heads, self.attention_dim).transpose(1, 2)
        output, attention = self.dot_product_attention(query, key, value, scale=self.scale, mask=mask)
        output = output.transpose(1, 2).reshape(batch_size, -1, self.output_dim)
        return output


torch.manual_seed(0)
layer = MultiHeadAttention(input_dim=8, attention_dim=4, num_heads=2)
X = torch.randn(2, 3, 8)
out = layer(X, X, X)
order = [1, 0, 2]
assert torch.allclose(layer(X[:, order], X[:, order], X[:, order]), out[:, order], atol=1e-6)
