# source: https://github.com/thecharm/Mega/issues/18
# expect: clean
import torch
import torch.nn as nn
import torch.nn.functional as F

PIC_FEAT = 32
N_OBJECTS = 10  # visual objects per sentence


class MegaRE(nn.Module):
    def __init__(self, hidden=16, n_rel=4):
        super().__init__()
        self.pic_feat = PIC_FEAT
        self.text_proj = nn.Linear(hidden, PIC_FEAT)
        self.classifier = nn.Linear(2 * PIC_FEAT, n_rel)

    def forward(self, text_hidden, pic):
        pic = pic.view(text_hidden.size(0), N_OBJECTS, self.pic_feat)
        txt = self.text_proj(text_hidden)
        attn = torch.softmax(torch.einsum("bd,bod->bo", txt, pic), dim=-1)
        fused = torch.einsum("bo,bod->bd", attn, pic)
        return self.classifier(torch.cat([txt, fused], -1))


def pad_objects(pic, batch_size):
    # every sentence keeps exactly N_OBJECTS object rows: pad the short last group
    missing = batch_size * N_OBJECTS - pic.size(0)
    return F.pad(pic, (0, 0, 0, missing))


model = MegaRE()
batches = [(torch.randn(4, 16), torch.randn(40, PIC_FEAT)), (torch.randn(6, 16), torch.randn(58, PIC_FEAT))]
for text_hidden, pic in batches:
    logits = model(text_hidden, pad_objects(pic, text_hidden.size(0)))
    logits.logsumexp(-1).mean().backward()
