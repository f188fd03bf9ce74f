# source: https://github.com/zalandoresearch/pytorch-vq-vae/blob/master/vq-vae.ipynb
# expect: clean
# note: straight-through estimator `inputs + (quantized - inputs).detach()`, and a one-hot encoding filled with scatter_ into a tensor that needs no grad
import torch
import torch.nn as nn
import torch.nn.functional as F


class VectorQuantizer(nn.Module):
    def __init__(self, num_embeddings, embedding_dim, commitment_cost):
        super().__init__()
        self._embedding_dim = embedding_dim
        self._num_embeddings = num_embeddings
        self._embedding = nn.Embedding(self._num_embeddings, self._embedding_dim)
        self._embedding.weight.data.uniform_(-1 / self._num_embeddings, 1 / self._num_embeddings)
        self._commitment_cost = commitment_cost

    def forward(self, inputs):
        inputs = inputs.permute(0, 2, 3, 1).contiguous()
        input_shape = inputs.shape
        flat_input = inputs.view(-1, self._embedding_dim)
        distances = (
            torch.sum(flat_input**2, dim=1, keepdim=True)
            + torch.sum(self._embedding.weight**2, dim=1)
            - 2 * torch.matmul(flat_input, self._embedding.weight.t())
        )
        encoding_indices = torch.argmin(distances, dim=1).unsqueeze(1)
        encodings = torch.zeros(encoding_indices.shape[0], self._num_embeddings, device=inputs.device)
        encodings.scatter_(1, encoding_indices, 1)
        quantized = torch.matmul(encodings, self._embedding.weight).view(input_shape)
        e_latent_loss = F.mse_loss(quantized.detach(), inputs)
        q_latent_loss = F.mse_loss(quantized, inputs.detach())
        loss = q_latent_loss + self._commitment_cost * e_latent_loss
        quantized = inputs + (quantized - inputs).detach()
        return loss, quantized.permute(0, 3, 1, 2).contiguous()


encoder = nn.Conv2d(3, 4, 3, padding=1)
vq = VectorQuantizer(8, 4, 0.25)
decoder = nn.Conv2d(4, 3, 3, padding=1)
optimizer = torch.optim.Adam([*encoder.parameters(), *vq.parameters(), *decoder.parameters()], lr=1e-3)
x = torch.randn(2, 3, 4, 4)
vq_loss, quantized = vq(encoder(x))
loss = F.mse_loss(decoder(quantized), x) + vq_loss
loss.backward()
optimizer.step()
