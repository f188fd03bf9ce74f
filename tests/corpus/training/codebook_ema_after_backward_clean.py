# torch: ok
# The same quantiser with its EMA update moved after the backward (graph freed), and
# a forward that clones the codebook before reading it.
import torch
import torch.nn as nn


class Quantiser(nn.Module):
    def __init__(self, codes=6, dim=4):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.register_buffer("codebook", torch.randn(codes, dim))

    def forward(self, x):
        z = self.proj(x)
        return (z @ self.codebook.clone().t()).softmax(dim=1), z


model = Quantiser()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
for step in range(2):
    x = torch.randn(5, 4)
    probs, z = model(x)
    loss = -probs.max(dim=1).values.log().mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    with torch.no_grad():
        nearest = probs.argmax(dim=1)
        model.codebook[nearest] = 0.9 * model.codebook[nearest] + 0.1 * z
