# source: https://github.com/kail8/UnsupDIS-pytorch/issues/26
# expect: is a view and is being modified inplace
# buggy-line: 23
# mechanism: boolean-mask assignment into `t_s.reshape(-1)`, where `t_s` is one of the outputs of `torch.chunk` of the projected grid
import torch
import torch.nn as nn


def _meshgrid(height, width):
    y, x = torch.meshgrid(torch.linspace(-1, 1, height), torch.linspace(-1, 1, width), indexing="ij")
    ones = torch.ones_like(x)
    return torch.stack([x.reshape(-1), y.reshape(-1), ones.reshape(-1)], dim=0)


def transformer(U, theta, out_size):
    num_batch, num_channels, height, width = U.shape
    out_height, out_width = out_size
    grid = _meshgrid(out_height, out_width).unsqueeze(0).expand(num_batch, 3, -1)
    T_g = torch.bmm(theta, grid)
    x_s, y_s, t_s = torch.chunk(T_g, 3, dim=1)
    t_s_flat = t_s.reshape(-1)
    eps = 1e-7
    t_s_flat[t_s_flat.abs() < eps] = eps
    x_s_flat = x_s.reshape(-1) / t_s_flat
    y_s_flat = y_s.reshape(-1) / t_s_flat
    sample_grid = torch.stack([x_s_flat, y_s_flat], dim=-1).view(num_batch, out_height, out_width, 2)
    return nn.functional.grid_sample(U, sample_grid, align_corners=True)


class HNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.feature = nn.Sequential(nn.Conv2d(6, 4, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.regress = nn.Linear(4, 8)

    def forward(self, input1, input2):
        offset = self.regress(self.feature(torch.cat([input1, input2], 1)))
        H = torch.cat([offset, offset.new_zeros(offset.size(0), 1)], 1).view(-1, 3, 3) * 0.01
        H = H + torch.eye(3).unsqueeze(0)
        warp2 = transformer(input2, H, (8, 8))
        return warp2


net = HNet()
optimizer = torch.optim.Adam(net.parameters(), lr=1e-4)
batch_size = 1  # test-time stitching runs one image pair at a time
input1, input2 = torch.rand(batch_size, 3, 8, 8), torch.rand(batch_size, 3, 8, 8)
for _ in range(2):
    optimizer.zero_grad()
    warp2 = net(input1, input2)
    loss = (warp2 - input1).abs().mean()
    loss.backward()
    optimizer.step()
