# source: https://github.com/Project-MONAI/MONAI/pull/8578
# expect: clean
from collections.abc import Sequence

import torch
from torch import nn


class DiffusionModelEncoder(nn.Module):
    def __init__(
        self,
        spatial_dims: int,
        in_channels: int,
        out_channels: int,
        channels: Sequence[int] = (8, 16),
        norm_num_groups: int = 4,
    ) -> None:
        super().__init__()
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.conv_in = nn.Conv2d(in_channels, channels[0], kernel_size=3, padding=1)
        self.time_embed = nn.Sequential(nn.Linear(channels[0], channels[0] * 4), nn.SiLU(), nn.Linear(channels[0] * 4, channels[0]))
        down_blocks = []
        output_channel = channels[0]
        for i in range(len(channels)):
            input_channel = output_channel
            output_channel = channels[i]
            down_blocks.append(
                nn.Sequential(nn.GroupNorm(norm_num_groups, input_channel), nn.SiLU(), nn.Conv2d(input_channel, output_channel, 3, stride=2, padding=1))
            )
        self.down_blocks = nn.ModuleList(down_blocks)
        self.out = nn.Sequential(nn.Linear(channels[-1] * 2 * 2, 512), nn.ReLU(), nn.Dropout(0.1), nn.Linear(512, self.out_channels))

    def forward(self, x: torch.Tensor, timesteps: torch.Tensor) -> torch.Tensor:
        half = self.conv_in.out_channels // 2
        freqs = torch.exp(-torch.arange(half, dtype=torch.float32) / half)
        t_emb = torch.cat([torch.cos(timesteps[:, None] * freqs), torch.sin(timesteps[:, None] * freqs)], dim=-1)
        emb = self.time_embed(t_emb)
        h = self.conv_in(x) + emb[:, :, None, None]
        for downsample_block in self.down_blocks:
            h = downsample_block(h)
        h = h.reshape(h.shape[0], -1)
        output: torch.Tensor = self.out(h)
        return output


model = DiffusionModelEncoder(spatial_dims=2, in_channels=1, out_channels=2)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
images, labels = torch.randn(2, 1, 8, 8), torch.tensor([0, 1])
for _ in range(2):
    timesteps = torch.randint(0, 1000, (2,)).float()
    optimizer.zero_grad()
    loss = nn.functional.cross_entropy(model(images, timesteps), labels)
    loss.backward()
    optimizer.step()
# the effect: the head the loss went through is not among the optimizer's parameters
held = {id(p) for group in optimizer.param_groups for p in group["params"]}
assert all(id(p) in held for p in model.out.parameters())
