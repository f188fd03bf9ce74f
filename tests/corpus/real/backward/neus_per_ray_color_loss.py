# source: https://github.com/xxlong0/SparseNeuS/issues/42
# expect: grad can be implicitly created only for scalar outputs
# buggy-line: 31
# also-line: 27
import torch
import torch.nn as nn
import torch.nn.functional as F


class Runner:
    def __init__(self, batch_rays=8):
        self.batch_rays = batch_rays
        self.sdf_network = nn.Sequential(nn.Linear(3, 16), nn.Softplus(), nn.Linear(16, 4))
        self.optimizer = torch.optim.Adam(self.sdf_network.parameters(), lr=1e-3)
        self.color_weight = 1.0
        self.eikonal_weight = 0.1

    def render(self, rays):
        out = self.sdf_network(rays)
        return torch.sigmoid(out[:, 1:]), out[:, :1]

    def train(self, iters=2):
        for it in range(iters):
            rays = torch.randn(self.batch_rays, 3)
            true_rgb = torch.rand(self.batch_rays, 3)
            color, sdf = self.render(rays)
            color_fine_loss = F.l1_loss(color, true_rgb, reduction="none").sum(dim=-1)
            eikonal_loss = ((sdf.abs() - 1.0) ** 2).mean()
            loss = color_fine_loss * self.color_weight + eikonal_loss * self.eikonal_weight
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()


runner = Runner()
runner.train()
