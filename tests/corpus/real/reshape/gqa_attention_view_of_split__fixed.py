# source: https://github.com/NVIDIA/Megatron-LM/issues/875
# expect: clean
import torch
import torch.nn as nn


class ParallelAttention(nn.Module):
    """sequence-first [s, b, h] attention with grouped query heads"""

    def __init__(self, hidden_size=16, num_attention_heads=4, num_query_groups=2):
        super().__init__()
        self.np = num_attention_heads
        self.ng = num_query_groups
        self.hidden_size_per_attention_head = hidden_size // num_attention_heads
        hn = self.hidden_size_per_attention_head
        self.query_key_value = nn.Linear(hidden_size, (num_attention_heads + 2 * num_query_groups) * hn)
        self.dense = nn.Linear(hidden_size, hidden_size)

    def forward(self, hidden_states):
        s, b, _ = hidden_states.shape
        hn = self.hidden_size_per_attention_head
        mixed_x_layer = self.query_key_value(hidden_states)
        # [s, b, ng, (np/ng + 2) * hn]
        mixed_x_layer = mixed_x_layer.view(s, b, self.ng, (self.np // self.ng + 2) * hn)
        query_layer, key_layer, value_layer = torch.split(
            mixed_x_layer, [self.np // self.ng * hn, hn, hn], dim=3
        )
        query_layer = query_layer.reshape(query_layer.size(0), query_layer.size(1), -1, hn)
        key_layer = key_layer.repeat_interleave(self.np // self.ng, dim=2)
        value_layer = value_layer.repeat_interleave(self.np // self.ng, dim=2)
        scores = torch.einsum("sbnh,tbnh->bnst", query_layer, key_layer) / hn**0.5
        context = torch.einsum("bnst,tbnh->sbnh", scores.softmax(-1), value_layer)
        return self.dense(context.reshape(s, b, -1))


attn = ParallelAttention()
out = attn(torch.randn(5, 2, 16))
out.sum().backward()
