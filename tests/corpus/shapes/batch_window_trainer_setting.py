"""A trainer method batching token rows with its own batch_size setting: 10 rows in
batches of 4 end with 2, and the reshape assumes a full batch."""
# torch: is invalid for input of size
import torch
import torch.nn as nn


class Trainer:
    def __init__(self, model, batch_size=4):
        self.model = model
        self.batch_size = batch_size

    def embed_all(self, tokens):
        out = []
        for start in range(0, len(tokens), self.batch_size):
            chunk = tokens[start : start + self.batch_size]
            emb = self.model(chunk)
            out.append(emb.reshape(self.batch_size, -1))  # expect: GL403
        return out


trainer = Trainer(nn.Embedding(10, 7))
trainer.embed_all(torch.randint(0, 10, (10, 5)))
