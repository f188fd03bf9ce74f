"""A top-k hit counter in an evaluation helper that no code of the file calls (other
modules import it): its arguments are unknown, but topk / t / eq are tensor methods."""
# torch: view size is not compatible
import torch


def topk_hits(logits, labels, k=3):
    with torch.no_grad():
        _, idx = logits.topk(k, dim=1)
        ranked = idx.t()
        hits = ranked.eq(labels.unsqueeze(0).expand_as(ranked))
        return hits[:k].view(-1).float().sum()  # expect: GL401


globals()["topk_hits"](torch.randn(6, 10), torch.randint(0, 10, (6,)))
