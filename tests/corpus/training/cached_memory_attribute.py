# torch: raises Trying to backward through the graph a second time
# A decoder keeps the encoder's memory of the support set as an attribute, computed once
# when the episode starts; each query step backpropagates through it again.
import torch
import torch.nn as nn
import torch.nn.functional as F


class Episode:
    def __init__(self, encoder, support):
        self.encoder = encoder
        self.memory = encoder(support).mean(0)

    def loss(self, query, label):
        scores = self.encoder(query) @ self.memory
        return F.binary_cross_entropy_with_logits(scores, label)


encoder = nn.Sequential(nn.Linear(5, 8), nn.ReLU())
optimizer = torch.optim.SGD(encoder.parameters(), lr=0.1)
episode = Episode(encoder, torch.randn(4, 5))
for query in [torch.randn(3, 5), torch.randn(3, 5)]:
    optimizer.zero_grad()
    episode.loss(query, torch.ones(3)).backward()  # expect: GL305
