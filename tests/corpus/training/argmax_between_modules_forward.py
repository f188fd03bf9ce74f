# torch: ok
# A model's forward picks discrete codes with argmax and embeds them: the decoder and the
# embedding train, the encoder before the argmax never does.
import torch
import torch.nn as nn


class DiscreteBottleneck(nn.Module):
    def __init__(self, n_in=8, n_codes=16, dim=4):
        super().__init__()
        self.encoder = nn.Linear(n_in, n_codes)
        self.codebook = nn.Embedding(n_codes, dim)
        self.decoder = nn.Linear(dim, n_in)

    def forward(self, x):
        codes = self.encoder(x).argmax(dim=-1)  # expect: GL203
        return self.decoder(self.codebook(codes))


model = DiscreteBottleneck()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for step in range(2):
    x = torch.randn(10, 8)
    loss = (model(x) - x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
assert model.encoder.weight.grad is None
