# source: https://github.com/pytorch/pytorch/issues/5073
# expect: shape '[-1, 6]' is invalid for input of size 15
# buggy-line: 29
import torch
import torch.nn as nn
import torch.nn.functional as F


class Attention(nn.Module):
    def __init__(self, hidden=8, seq_len=6, use_coverage=True):
        super().__init__()
        self.seq_len = seq_len  # max article length from the config
        self.use_coverage = use_coverage
        self.W_h = nn.Linear(hidden, hidden, bias=False)
        self.W_s = nn.Linear(hidden, hidden)
        self.W_c = nn.Linear(1, hidden, bias=False)
        self.v = nn.Linear(hidden, 1, bias=False)

    def forward(self, encoder_outputs, s_t, coverage):
        b, t_k, n = encoder_outputs.size()
        enc_features = self.W_h(encoder_outputs.reshape(-1, n))
        dec_features = self.W_s(s_t).repeat_interleave(t_k, 0)
        if self.use_coverage:
            coverage_features = self.W_c(coverage.reshape(-1, 1))
            pre_attention = enc_features + dec_features + coverage_features
        else:
            pre_attention = enc_features + dec_features
        attention = self.v(torch.tanh(pre_attention))
        reshaped_attention = attention.view(-1, self.seq_len)
        return F.softmax(reshaped_attention, dim=1)


attn = Attention()
# batches are padded to their own longest article: 6 tokens, then only 5
for t_k in (6, 5):
    enc = torch.randn(3, t_k, 8)
    a = attn(enc, torch.randn(3, 8), torch.zeros(3, t_k))
    a.max(1)[0].sum().backward()
