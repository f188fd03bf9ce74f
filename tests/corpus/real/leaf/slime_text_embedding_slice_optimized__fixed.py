# source: https://github.com/aliasgharkhani/SLiMe/issues/10
# expect: clean
import torch
import torch.nn as nn


class TextEncoder(nn.Module):
    def __init__(self, vocab=20, dim=8):
        super().__init__()
        self.token_embedding = nn.Embedding(vocab, dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, ids):
        return self.proj(self.token_embedding(ids))


class Slime(nn.Module):
    def __init__(self, num_parts=2):
        super().__init__()
        self.text_encoder = TextEncoder()
        self.unet = nn.Linear(8, 4)
        self.num_parts = num_parts
        for p in self.parameters():
            p.requires_grad_(False)
        ids = torch.tensor([[0, 5, 6, 1]])
        with torch.no_grad():
            text_embedding = self.text_encoder(ids)
        self.text_embedding = text_embedding
        self.embeddings_to_optimize = text_embedding[:, 1 : 1 + num_parts].clone().requires_grad_(True)

    def forward(self, x):
        parts = 1 + self.num_parts
        embedding = torch.cat(
            [self.text_embedding[:, :1], self.embeddings_to_optimize, self.text_embedding[:, parts:]], dim=1
        )
        attn = torch.softmax(x @ embedding[0].t(), dim=-1)
        return self.unet(attn @ embedding[0])

    def configure_optimizers(self):
        return torch.optim.Adam([self.embeddings_to_optimize], lr=0.1)


model = Slime()
optimizer = model.configure_optimizers()
x = torch.randn(3, 8)
for _ in range(2):
    optimizer.zero_grad()
    loss = model(x).pow(2).mean()
    loss.backward()
    optimizer.step()
