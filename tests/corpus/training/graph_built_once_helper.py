# torch: raises Trying to backward through the graph a second time
# A helper embeds the prompt once, before the optimisation loop; every step backpropagates
# through that one embedding graph, freed by the first step.
import torch
import torch.nn as nn


def embed(encoder, tokens):
    return torch.tanh(encoder(tokens))


encoder = nn.Embedding(10, 6)
head = nn.Linear(6, 1)
optimizer = torch.optim.Adam(list(encoder.parameters()) + list(head.parameters()), lr=1e-2)
tokens = torch.tensor([1, 4, 2])
prompt = embed(encoder, tokens)
for step in range(3):
    optimizer.zero_grad()
    loss = head(prompt).pow(2).mean()
    loss.backward()  # expect: GL305
    optimizer.step()
