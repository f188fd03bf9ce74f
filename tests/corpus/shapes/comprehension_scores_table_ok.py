"""The same table when every head saw the same tokens, and a filtered comprehension
(its length is unknown): nothing is proven wrong."""
import torch


class Scorer:
    def __init__(self, heads=3, tokens=5):
        self.heads, self.tokens = heads, tokens
        self.proj = torch.nn.Linear(8, 1)

    def table(self, per_head):
        scores = torch.cat([self.proj(h).flatten() for h in per_head])
        return scores.view(self.heads, self.tokens)

    def kept(self, per_head):
        scores = torch.cat([self.proj(h).flatten() for h in per_head if h.size(0) == self.tokens])
        return scores.view(-1, self.tokens)


scorer = Scorer()
scorer.table((torch.randn(5, 8), torch.randn(5, 8), torch.randn(5, 8)))
scorer.kept((torch.randn(5, 8), torch.randn(5, 8), torch.randn(4, 8)))
