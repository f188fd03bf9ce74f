# source: https://github.com/zichaow/QG-Net/issues/11
# expect: view size is not compatible with input tensor's size and stride
# buggy-line: 29
# also-line: 27
import torch
import torch.nn as nn
import torch.nn.functional as F


class Encoder(nn.Module):
    def __init__(self, vocab=20, emb=6, hidden=8):
        super().__init__()
        self.embedding = nn.Embedding(vocab, emb)
        self.rnn = nn.LSTM(emb, hidden)  # sequence-first

    def forward(self, src):
        outputs, _ = self.rnn(self.embedding(src))
        return outputs  # (src_len, batch, hidden)


class CopyGenerator(nn.Module):
    def __init__(self, hidden=8):
        super().__init__()
        self.copy_proj = nn.Linear(hidden, 1)

    def forward(self, memory_bank, dec_state):
        memory = memory_bank.transpose(0, 1)
        batch, src_len, hidden = memory.size()
        flat = memory.view(batch * src_len, hidden)
        scores = self.copy_proj(flat * dec_state.repeat_interleave(src_len, 0)).view(batch, src_len)
        return F.softmax(scores, dim=-1)


src = torch.randint(0, 20, (7, 3))
enc, gen = Encoder(), CopyGenerator()
memory_bank = enc(src)
attn = gen(memory_bank, torch.randn(3, 8))
attn.log().mean().backward()
