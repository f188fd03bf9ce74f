# source: https://github.com/meta-pytorch/torchrec/pull/2836
# expect: clean
import torch
import torch.nn as nn


class ManagedCollisionEmbedding(nn.Module):
    def __init__(self, num_embeddings=8, dim=4, max_hits=2):
        super().__init__()
        self._mch_embeddings = nn.Embedding(num_embeddings, dim)
        self.proj = nn.Parameter(torch.randn(dim, dim))
        self.register_buffer("hits", torch.zeros(num_embeddings))
        self.max_hits = max_hits

    def _evict(self):
        evicted_indices = (self.hits >= self.max_hits).nonzero().squeeze(-1)
        if evicted_indices.numel():
            self._mch_embeddings.weight.data[evicted_indices] = 0.01 * torch.randn(evicted_indices.numel(), self.proj.shape[0])
            self.hits[evicted_indices] = 0

    def forward(self, ids):
        self._evict()
        self.hits.index_add_(0, ids, torch.ones(ids.numel()))
        table = nn.functional.normalize(self._mch_embeddings.weight, dim=-1)
        return table[ids] @ self.proj


model = ManagedCollisionEmbedding()
optimizer = torch.optim.Adagrad(model.parameters(), lr=0.1)
batches = [torch.tensor([1, 2, 2]), torch.tensor([2, 3])]
optimizer.zero_grad()
losses = [model(ids).pow(2).mean() for ids in batches]
sum(losses).backward()
optimizer.step()
