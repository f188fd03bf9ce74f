# source: https://github.com/TencentYoutuResearch/PersonReID-NAFS/issues/18
# expect: clean
import torch
import torch.nn as nn


class NAFS(nn.Module):
    def __init__(self, vocab=30, dim=12, n_sep=2):
        super().__init__()
        self.n_sep = n_sep
        self.text_embed = nn.EmbeddingBag(vocab, dim)
        self.local_text_proj = nn.Linear(dim, dim)

    def forward(self, sentence_parts):
        local_text_feat = self.local_text_proj(torch.stack([self.text_embed(p.unsqueeze(0))[0] for p in sentence_parts]))
        local_text_feat = local_text_feat.view(-1, self.n_sep, local_text_feat.size(1))
        return local_text_feat.max(1)[0]


def split_caption(tokens, n_sep=2, sep=0):
    parts, cur = [], []
    for t in tokens.tolist():
        if t == sep:
            parts.append(cur)
            cur = []
        else:
            cur.append(t)
    if cur:
        parts.append(cur)
    # always exactly n_sep parts: merge the extra ones into the last, pad the missing
    parts = parts[: n_sep - 1] + [sum(parts[n_sep - 1 :], [])]
    parts += [[sep]] * (n_sep - len(parts))
    return [torch.tensor(p) for p in parts]


captions = [torch.tensor([3, 4, 0, 5, 6]), torch.tensor([7, 8, 0, 9]), torch.tensor([4, 0, 5, 0, 6])]
model = NAFS()
parts = [p for c in captions for p in split_caption(c)]
model(parts).sum().backward()
