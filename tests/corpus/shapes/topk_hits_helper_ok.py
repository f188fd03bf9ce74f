"""The hit counter with reshape, with contiguous() before view, and on pred not
transposed: all run."""
import torch


def topk_hits(logits, labels, k=3):
    with torch.no_grad():
        _, idx = logits.topk(k, dim=1)
        ranked = idx.t()
        hits = ranked.eq(labels.unsqueeze(0).expand_as(ranked))
        first = hits[:k].reshape(-1).float().sum()
        second = hits[:k].contiguous().view(-1).float().sum()
        third = idx.eq(labels.unsqueeze(1).expand_as(idx)).view(-1).float().sum()
        return first + second + third


globals()["topk_hits"](torch.randn(6, 10), torch.randint(0, 10, (6,)))
