# A decoder layer in the shape of MiniMax's / PhiMoE's: it keeps `residual` and calls
# its sparse-MoE block, whose forward multiplies its input by jitter noise in place
# during training, so the residual the layer adds back is the jittered tensor too.
import torch
import torch.nn as nn


class SparseMoeBlock(nn.Module):
    def __init__(self, dim=4, jitter_noise=0.5):
        super().__init__()
        self.jitter_noise = jitter_noise
        self.gate = nn.Linear(dim, 2)
        self.experts = nn.ModuleList([nn.Linear(dim, dim) for _ in range(2)])

    def forward(self, hidden_states):
        if self.training and self.jitter_noise > 0:
            hidden_states *= torch.empty_like(hidden_states).uniform_(1.0 - self.jitter_noise, 1.0 + self.jitter_noise)  # expect: GL104
        weights = self.gate(hidden_states).softmax(dim=-1)
        return sum(weights[:, i : i + 1] * expert(hidden_states) for i, expert in enumerate(self.experts))


class DecoderLayer(nn.Module):
    def __init__(self, dim=4):
        super().__init__()
        self.post_attention_layernorm = nn.LayerNorm(dim)
        self.block_sparse_moe = SparseMoeBlock(dim)

    def forward(self, hidden_states):
        hidden_states = self.post_attention_layernorm(hidden_states)
        residual = hidden_states
        hidden_states = self.block_sparse_moe(hidden_states)
        return residual + hidden_states


torch.manual_seed(0)
layer = DecoderLayer()
x = torch.randn(3, 4)
normed = layer.post_attention_layernorm(x).detach()
moe_out = []
layer.block_sparse_moe.register_forward_hook(lambda module, args, out: moe_out.append(out))
out = layer(x)
assert torch.allclose(out, normed + moe_out[0]), "the residual was jittered"
