"""Per-head scores gathered into one vector, then cut into a (heads, tokens) table whose
sizes come from the config: the last head saw fewer tokens."""
# torch: is invalid for input of size
import torch


class Scorer:
    def __init__(self, heads=3, tokens=5):
        self.heads, self.tokens = heads, tokens
        self.proj = torch.nn.Linear(8, 1)

    def table(self, per_head):
        scores = torch.cat([self.proj(h).flatten() for h in per_head])
        return scores.view(self.heads, self.tokens)  # expect: GL402


scorer = Scorer()
scorer.table((torch.randn(5, 8), torch.randn(5, 8), torch.randn(4, 8)))
