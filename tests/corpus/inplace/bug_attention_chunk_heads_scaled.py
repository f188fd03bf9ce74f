# Self-attention written as a script: q, k, v come from one projection by chunk(), the
# query is split into heads by reshape (a view of the chunk piece: splitting a dim never
# copies) and scaled in place.
import torch

B, L, E, H = 2, 5, 8, 2
x = torch.randn(B, L, E)
w_qkv = torch.randn(E, 3 * E, requires_grad=True)
q, k, v = (x @ w_qkv).chunk(3, dim=-1)
q = q.reshape(B, L, H, E // H)
k = k.reshape(B, L, H, E // H)
v = v.reshape(B, L, H, E // H)
q *= (E // H) ** -0.5  # expect: GL103
attn = torch.einsum("blhd,bmhd->bhlm", q, k).softmax(dim=-1)
out = torch.einsum("bhlm,bmhd->blhd", attn, v)
out.sum().backward()
