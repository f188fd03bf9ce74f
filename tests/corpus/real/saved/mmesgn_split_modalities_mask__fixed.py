# source: https://github.com/OpenNMT/OpenNMT-py/issues/2303
# expect: clean
import torch
import torch.nn as nn


class ModalityEncoder(nn.Module):
    def __init__(self, d_text=6, d_audio=4, d_video=5, d_model=8):
        super().__init__()
        self.sizes = [d_text, d_audio, d_video]
        self.proj = nn.Linear(d_text + d_audio + d_video, d_text + d_audio + d_video)
        self.fuse = nn.Linear(d_text + d_audio + d_video, d_model)

    def forward(self, feats, audio_missing):
        projected = torch.tanh(self.proj(feats))
        text, audio, video = torch.split(projected, self.sizes, dim=-1)
        audio = audio.masked_fill(audio_missing.unsqueeze(-1), 0.0)
        return self.fuse(torch.cat([text, audio, video], dim=-1))


class MMESGN(nn.Module):
    def __init__(self, n_labels=6):
        super().__init__()
        self.encoder = ModalityEncoder()
        self.generator = nn.Linear(8, n_labels)

    def forward(self, feats, audio_missing):
        return self.generator(self.encoder(feats, audio_missing).mean(1))


model = MMESGN()
optim = torch.optim.Adam(model.parameters(), lr=1e-3)
criterion = nn.BCEWithLogitsLoss()
feats = torch.randn(2, 5, 15)
audio_missing = torch.tensor([[False, False, True, True, False], [False, True, False, False, False]])
labels = torch.randint(0, 2, (2, 6)).float()
optim.zero_grad()
loss = criterion(model(feats, audio_missing), labels)
loss.backward()
optim.step()
