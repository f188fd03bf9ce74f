# A top-2 router in the shape of NLLB-MoE's: forward computes the router logits, asks a
# helper for the routing (a mask and probabilities), and returns the logits for the
# z-loss. The helper adds sampling noise into the logits in place to pick the second
# expert, so the logits forward returns are the noisy ones.
import torch
import torch.nn as nn


class Top2Router(nn.Module):
    def __init__(self, dim=4, experts=3):
        super().__init__()
        self.classifier = nn.Linear(dim, experts)

    def route_tokens(self, router_logits):
        router_probs = router_logits.softmax(dim=-1)
        top_1_mask = nn.functional.one_hot(router_probs.argmax(dim=-1), router_logits.size(-1))
        router_logits += 10.0 * torch.rand_like(router_logits)  # expect: GL104
        second = router_logits.masked_fill(top_1_mask.bool(), float("-inf")).argmax(dim=-1)
        return top_1_mask, router_probs, second

    def forward(self, hidden_states):
        router_logits = self.classifier(hidden_states)
        top_1_mask, router_probs, second = self.route_tokens(router_logits)
        return top_1_mask, router_probs, router_logits


router = Top2Router()
tokens = torch.randn(5, 4)
_, _, logits = router(tokens)
assert torch.allclose(logits, router.classifier(tokens)), "the z-loss sees noisy logits"
