# torch: ok
# The prompt is embedded again in every step: each backward has a graph of its own.
import torch
import torch.nn as nn


def embed(encoder, tokens):
    return torch.tanh(encoder(tokens))


encoder = nn.Embedding(10, 6)
head = nn.Linear(6, 1)
optimizer = torch.optim.Adam(list(encoder.parameters()) + list(head.parameters()), lr=1e-2)
tokens = torch.tensor([1, 4, 2])
for step in range(3):
    optimizer.zero_grad()
    prompt = embed(encoder, tokens)
    loss = head(prompt).pow(2).mean()
    loss.backward()
    optimizer.step()
