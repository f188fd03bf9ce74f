# The fixed twin of bug_topk_routing_renormalised_in_place: the renormalised weights are
# a new tensor, so the output softmax saved stays as it was.
import torch
import torch.nn as nn
import torch.nn.functional as F


class ProductKeyMoE(nn.Module):
    def __init__(self, hidden=8, num_keys=4, top_k=2):
        super().__init__()
        self.num_keys = num_keys
        self.top_k = top_k
        self.router_gate = nn.Linear(hidden, num_keys * 2, bias=False)
        self.experts = nn.Embedding(num_keys * num_keys, hidden)

    def forward(self, hidden_states):
        bsz, seq_len, _ = hidden_states.shape
        logits = self.router_gate(hidden_states).view(bsz * seq_len, 2, -1).transpose(0, 1)
        (scores_x, scores_y), (indices_x, indices_y) = logits.topk(self.num_keys, dim=-1)
        all_scores = (scores_x.unsqueeze(-1) + scores_y.unsqueeze(-2)).flatten(1)
        all_indices = (indices_x.unsqueeze(-1) * self.num_keys + indices_y.unsqueeze(-2)).flatten(1)
        scores, position = all_scores.topk(self.top_k, dim=-1)
        routing_weights = F.softmax(scores, dim=-1)
        routing_weights = routing_weights / routing_weights.sum(dim=-1, keepdim=True)
        experts = self.experts(all_indices.gather(-1, position))
        return (routing_weights.unsqueeze(-1) * experts).sum(1).view(bsz, seq_len, -1)


ProductKeyMoE()(torch.randn(2, 3, 8)).sum().backward()
