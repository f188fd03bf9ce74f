# source: https://github.com/TencentYoutuResearch/PersonReID-NAFS/issues/18
# expect: shape '[-1, 2, 12]' is invalid for input of size 84
# buggy-line: 19
# mechanism: the row count of `torch.stack` over a list built from the data (captions cut at separators: 7 rows) is not divisible by n_sep=2; the count depends on tensor values, so only a probe with the script's own inputs can prove it
import torch
import torch.nn as nn


class NAFS(nn.Module):
    def __init__(self, vocab=30, dim=12, n_sep=2):
        super().__init__()
        self.n_sep = n_sep
        self.text_embed = nn.EmbeddingBag(vocab, dim)
        self.local_text_proj = nn.Linear(dim, dim)

    def forward(self, sentence_parts):
        # one row per sub-sentence: captions are cut at '.' into n_sep parts
        local_text_feat = self.local_text_proj(torch.stack([self.text_embed(p.unsqueeze(0))[0] for p in sentence_parts]))
        local_text_feat = local_text_feat.view(-1, self.n_sep, local_text_feat.size(1))
        return local_text_feat.max(1)[0]


def split_caption(tokens, sep=0):
    parts, cur = [], []
    for t in tokens.tolist():
        if t == sep:
            parts.append(torch.tensor(cur))
            cur = []
        else:
            cur.append(t)
    if cur:
        parts.append(torch.tensor(cur))
    return parts


captions = [torch.tensor([3, 4, 0, 5, 6]), torch.tensor([7, 8, 0, 9]), torch.tensor([4, 0, 5, 0, 6])]  # the last has 3 parts
model = NAFS()
parts = [p for c in captions for p in split_caption(c)]
model(parts).sum().backward()
