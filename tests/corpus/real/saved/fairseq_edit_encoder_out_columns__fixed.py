# source: https://github.com/facebookresearch/fairseq/issues/251
# expect: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


class ConvEncoder(nn.Module):
    def __init__(self, vocab=20, dim=8):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.conv = nn.Conv1d(dim, dim, 3, padding=1)

    def forward(self, src_tokens):
        x = self.embed(src_tokens)
        y = self.conv(x.transpose(1, 2)).transpose(1, 2)
        return (y, y + x)


class ConvDecoder(nn.Module):
    def __init__(self, vocab=20, dim=8):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.out = nn.Linear(dim, vocab)

    def forward(self, prev_tokens, encoder_out):
        x = self.embed(prev_tokens)
        attn_scores = torch.bmm(x, encoder_out[0].transpose(1, 2))
        attn = F.softmax(attn_scores, dim=-1)
        x = x + torch.bmm(attn, encoder_out[1])
        return self.out(x)


def do_something(column):
    return column * 0.5


encoder, decoder = ConvEncoder(), ConvDecoder()
params = list(encoder.parameters()) + list(decoder.parameters())
optimizer = torch.optim.Adam(params, lr=1e-3)
src_tokens = torch.randint(0, 20, (2, 5))
prev_tokens = torch.randint(0, 20, (2, 4))
target = torch.randint(0, 20, (2, 4))

encoder_out = encoder(src_tokens)
logits = decoder(prev_tokens, encoder_out)
edited = encoder_out[0].clone()
for j in range(2):
    edited[:, :, j] = do_something(edited[:, :, j])
logits2 = decoder(prev_tokens, (edited, encoder_out[1]))
loss = F.cross_entropy(logits.view(-1, 20), target.view(-1)) + F.cross_entropy(logits2.view(-1, 20), target.view(-1))
loss.backward()
optimizer.step()
