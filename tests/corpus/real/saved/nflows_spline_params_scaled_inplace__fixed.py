# source: https://github.com/bayesiains/nflows/issues/89
# expect: clean
import numpy as np
import torch
import torch.nn as nn


class MLP(nn.Module):
    def __init__(self, in_features, out_features, hidden_features=8):
        super().__init__()
        self.hidden_features = hidden_features
        self.net = nn.Sequential(nn.Linear(in_features, hidden_features), nn.ReLU(), nn.Linear(hidden_features, out_features), nn.ReLU())

    def forward(self, x, context=None):
        return self.net(x)


class PiecewiseRationalQuadraticCouplingTransform(nn.Module):
    def __init__(self, features=2, num_bins=4):
        super().__init__()
        self.num_bins = num_bins
        self.transform_net = MLP(features // 2, (features - features // 2) * (3 * num_bins + 1))

    def forward(self, inputs):
        identity_split, transform_split = inputs.chunk(2, dim=1)
        transform_params = self.transform_net(identity_split)
        b, d = transform_split.shape
        transform_params = transform_params.reshape(b, d, -1)
        unnormalized_widths = transform_params[..., : self.num_bins]
        unnormalized_heights = transform_params[..., self.num_bins : 2 * self.num_bins]
        unnormalized_widths = unnormalized_widths / np.sqrt(self.transform_net.hidden_features)
        unnormalized_heights = unnormalized_heights / np.sqrt(self.transform_net.hidden_features)
        widths = torch.softmax(unnormalized_widths, dim=-1)
        heights = torch.softmax(unnormalized_heights, dim=-1)
        outputs = transform_split * (heights / widths).mean(-1)
        logabsdet = torch.log((heights / widths).mean(-1)).sum(-1)
        return torch.cat([identity_split, outputs], dim=1), logabsdet


flow = PiecewiseRationalQuadraticCouplingTransform()
optimizer = torch.optim.Adam(flow.parameters(), lr=1e-3)
x = torch.randn(4, 2)
optimizer.zero_grad()
z, logabsdet = flow(x)
loss = -(-0.5 * z.pow(2).sum(-1) + logabsdet).mean()
loss.backward()
optimizer.step()
