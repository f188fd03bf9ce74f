# source: https://github.com/graykode/nlp-tutorial/issues/29
# expect: silent: the attention's output projection and LayerNorm are built inside forward: new random layers each call, never in model.parameters(), never trained
# buggy-line: 68
import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim
from torch.autograd import Variable

sentences = ["ich mochte ein bier P", "S i want a beer", "i want a beer E"]

# Transformer Parameters
src_vocab = {w: i for i, w in enumerate(sentences[0].split())}
src_vocab_size = len(src_vocab)
tgt_vocab = {w: i for i, w in enumerate(sorted(set((sentences[1] + " " + sentences[2]).split())))}
tgt_vocab_size = len(tgt_vocab)

src_len = 5
tgt_len = 5

d_model = 16  # Embedding Size
d_ff = 32  # FeedForward dimension
d_k = d_v = 4  # dimension of K(=Q), V
n_layers = 1  # number of Encoder of Decoder Layer
n_heads = 2  # number of heads in Multi-Head Attention


def make_batch(sentences):
    input_batch = [[src_vocab[n] for n in sentences[0].split()]]
    target_batch = [[tgt_vocab[n] for n in sentences[2].split()]]
    return Variable(torch.LongTensor(input_batch)), Variable(torch.LongTensor(target_batch))


def get_attn_pad_mask(seq_q, seq_k):
    batch_size, len_q = seq_q.size()
    batch_size, len_k = seq_k.size()
    pad_attn_mask = seq_k.data.eq(0).unsqueeze(1)
    return pad_attn_mask.expand(batch_size, len_q, len_k)


class ScaledDotProductAttention(nn.Module):
    def __init__(self):
        super(ScaledDotProductAttention, self).__init__()

    def forward(self, Q, K, V, attn_mask):
        scores = torch.matmul(Q, K.transpose(-1, -2)) / np.sqrt(d_k)
        scores.masked_fill_(attn_mask, -1e9)
        attn = nn.Softmax(dim=-1)(scores)
        context = torch.matmul(attn, V)
        return context, attn


class MultiHeadAttention(nn.Module):
    def __init__(self):
        super(MultiHeadAttention, self).__init__()
        self.W_Q = nn.Linear(d_model, d_k * n_heads)
        self.W_K = nn.Linear(d_model, d_k * n_heads)
        self.W_V = nn.Linear(d_model, d_v * n_heads)

    def forward(self, Q, K, V, attn_mask):
        residual, batch_size = Q, Q.size(0)
        q_s = self.W_Q(Q).view(batch_size, -1, n_heads, d_k).transpose(1, 2)
        k_s = self.W_K(K).view(batch_size, -1, n_heads, d_k).transpose(1, 2)
        v_s = self.W_V(V).view(batch_size, -1, n_heads, d_v).transpose(1, 2)
        attn_mask = attn_mask.unsqueeze(1).repeat(1, n_heads, 1, 1)
        context, attn = ScaledDotProductAttention()(q_s, k_s, v_s, attn_mask)
        context = context.transpose(1, 2).contiguous().view(batch_size, -1, n_heads * d_v)
        output = nn.Linear(n_heads * d_v, d_model)(context)
        return nn.LayerNorm(d_model)(output + residual), attn


class Encoder(nn.Module):
    def __init__(self):
        super(Encoder, self).__init__()
        self.src_emb = nn.Embedding(src_vocab_size, d_model)
        self.layers = nn.ModuleList([MultiHeadAttention() for _ in range(n_layers)])
        self.projection = nn.Linear(d_model, tgt_vocab_size, bias=False)

    def forward(self, enc_inputs):
        enc_outputs = self.src_emb(enc_inputs)
        enc_self_attn_mask = get_attn_pad_mask(enc_inputs, enc_inputs)
        for layer in self.layers:
            enc_outputs, _ = layer(enc_outputs, enc_outputs, enc_outputs, enc_self_attn_mask)
        logits = self.projection(enc_outputs)
        return logits.view(-1, logits.size(-1))


model = Encoder()
criterion = nn.CrossEntropyLoss()
optimizer = optim.Adam(model.parameters(), lr=0.001)

for epoch in range(2):
    optimizer.zero_grad()
    enc_inputs, target_batch = make_batch(sentences)
    outputs = model(enc_inputs)
    loss = criterion(outputs, target_batch.contiguous().view(-1))
    loss.backward()
    optimizer.step()

# the effect: the output projection (d_model x n_heads * d_v) is no parameter of the model
assert not any(p.shape == (d_model, n_heads * d_v) for p in model.parameters())
