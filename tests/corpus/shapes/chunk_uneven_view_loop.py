"""chunk(3) of 128 features gives 43, 43, 42: the query cannot hold 4 heads of 16."""
# torch: is invalid for input of size
import torch

proj = torch.nn.Linear(64, 128)
for step in range(2):
    q, k, v = proj(torch.randn(2, 7, 64)).chunk(3, dim=-1)
    q = q.view(2, 7, 4, 16)  # expect: GL402
