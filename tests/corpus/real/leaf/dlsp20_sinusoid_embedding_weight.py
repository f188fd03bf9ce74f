# source: https://github.com/Atcold/NYU-DLSP20/issues/765
# expect: a view of a leaf Variable that requires grad is being used in an in-place operation
# buggy-line: 13
# also-line: 14
# mechanism: strided slice assignment into `nn.Embedding(...).weight` (a Parameter) in a helper called from `__init__`
import numpy as np
import torch
import torch.nn as nn


def create_sinusoidal_embeddings(nb_p, dim, E):
    theta = np.array([[p / np.power(10000, 2 * (j // 2) / dim) for j in range(dim)] for p in range(nb_p)])
    E[:, 0::2] = torch.FloatTensor(np.sin(theta[:, 0::2]))
    E[:, 1::2] = torch.FloatTensor(np.cos(theta[:, 1::2]))
    E.detach_()
    E.requires_grad = False
    E = E.to(torch.device("cpu"))


class Embeddings(nn.Module):
    def __init__(self, d_model, vocab_size, max_position_embeddings, p):
        super().__init__()
        self.word_embeddings = nn.Embedding(vocab_size, d_model, padding_idx=1)
        self.position_embeddings = nn.Embedding(max_position_embeddings, d_model)
        create_sinusoidal_embeddings(nb_p=max_position_embeddings, dim=d_model, E=self.position_embeddings.weight)
        self.LayerNorm = nn.LayerNorm(d_model, eps=1e-12)

    def forward(self, input_ids):
        seq_length = input_ids.size(1)
        position_ids = torch.arange(seq_length, dtype=torch.long).unsqueeze(0).expand_as(input_ids)
        embeddings = self.word_embeddings(input_ids) + self.position_embeddings(position_ids)
        return self.LayerNorm(embeddings)


class TransformerClassifier(nn.Module):
    def __init__(self, num_layers, d_model, num_heads, conv_hidden_dim, input_vocab_size, num_answers):
        super().__init__()
        self.emb = Embeddings(d_model, input_vocab_size, max_position_embeddings=16, p=0.1)
        self.dense = nn.Linear(d_model, num_answers)

    def forward(self, x):
        return self.dense(self.emb(x).max(dim=1)[0])


model = TransformerClassifier(num_layers=1, d_model=8, num_heads=2, conv_hidden_dim=16, input_vocab_size=50, num_answers=2)
print(model(torch.randint(0, 50, (2, 6))).shape)
