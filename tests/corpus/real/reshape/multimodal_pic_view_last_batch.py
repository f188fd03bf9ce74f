# source: https://github.com/thecharm/Mega/issues/18
# expect: shape '[-1, 10, 32]' is invalid for input of size 1856
# buggy-line: 19
import torch
import torch.nn as nn

PIC_FEAT = 32
N_OBJECTS = 10  # visual objects per sentence


class MegaRE(nn.Module):
    def __init__(self, hidden=16, n_rel=4):
        super().__init__()
        self.pic_feat = PIC_FEAT
        self.text_proj = nn.Linear(hidden, PIC_FEAT)
        self.classifier = nn.Linear(2 * PIC_FEAT, n_rel)

    def forward(self, text_hidden, pic):
        pic = pic.view(-1, N_OBJECTS, self.pic_feat)
        txt = self.text_proj(text_hidden)  # (B, PIC_FEAT)
        attn = torch.softmax(torch.einsum("bd,bod->bo", txt, pic), dim=-1)
        fused = torch.einsum("bo,bod->bd", attn, pic)
        return self.classifier(torch.cat([txt, fused], -1))


model = MegaRE()
# the last batch of the loader holds 58 object rows, not a multiple of 10
batches = [(torch.randn(4, 16), torch.randn(40, PIC_FEAT)), (torch.randn(6, 16), torch.randn(58, PIC_FEAT))]
for text_hidden, pic in batches:
    logits = model(text_hidden, pic)
    logits.logsumexp(-1).mean().backward()
