# source: https://github.com/agrimgupta92/sgan/issues/22
# expect: view size is not compatible with input tensor's size and stride
# buggy-line: 32
# also-line: 14
# mechanism: seq_collate permutes (peds, 2, seq_len) to (seq_len, peds, 2); the encoder's view(-1, 2) merges the two swapped dims
import torch
import torch.nn as nn


def seq_collate(data):
    (obs_seq_list, pred_seq_list) = zip(*data)
    # Data format: batch, input_size, seq_len
    # LSTM input format: seq_len, batch, input_size
    obs_traj = torch.cat(obs_seq_list, dim=0).permute(2, 0, 1)
    pred_traj = torch.cat(pred_seq_list, dim=0).permute(2, 0, 1)
    return tuple([obs_traj, pred_traj])


class Encoder(nn.Module):
    """Encoder is part of both TrajectoryGenerator and TrajectoryDiscriminator"""

    def __init__(self, embedding_dim=64, h_dim=64, num_layers=1):
        super(Encoder, self).__init__()
        self.h_dim = h_dim
        self.embedding_dim = embedding_dim
        self.num_layers = num_layers
        self.encoder = nn.LSTM(embedding_dim, h_dim, num_layers)
        self.spatial_embedding = nn.Linear(2, embedding_dim)

    def forward(self, obs_traj):
        batch = obs_traj.size(1)
        obs_traj_embedding = self.spatial_embedding(obs_traj.view(-1, 2))
        obs_traj_embedding = obs_traj_embedding.view(-1, batch, self.embedding_dim)
        output, state = self.encoder(obs_traj_embedding)
        final_h = state[0]
        return final_h


encoder = Encoder()
decoder_head = nn.Linear(64, 2)
optimizer = torch.optim.Adam(list(encoder.parameters()) + list(decoder_head.parameters()), lr=1e-3)
data = [(torch.randn(3, 2, 8), torch.randn(3, 2, 12)), (torch.randn(4, 2, 8), torch.randn(4, 2, 12))]
obs_traj, pred_traj = seq_collate(data)
final_h = encoder(obs_traj)
loss = ((decoder_head(final_h[-1]) - pred_traj[-1]) ** 2).mean()
optimizer.zero_grad()
loss.backward()
optimizer.step()
