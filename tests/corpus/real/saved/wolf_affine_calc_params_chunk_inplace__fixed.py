# source: https://github.com/XuezheMax/wolf/pull/1
# expect: clean
__author__ = 'max'

from typing import Tuple

import torch

from wolf_pkg.blocks import NICEMLPBlock
from wolf_pkg.flow import Flow


class Transform():
    def calc_params(self, params):
        return params

    @staticmethod
    def fwd(z: torch.Tensor, params) -> Tuple[torch.Tensor, torch.Tensor]:
        raise NotImplementedError

    @staticmethod
    def bwd(z: torch.Tensor, params) -> Tuple[torch.Tensor, torch.Tensor]:
        raise NotImplementedError

    def __str__(self):
        return self.__class__.__name__ + '(' + self.extra_repr() + ')'

    def extra_repr(self):
        return ''


class Affine(Transform):
    def __init__(self, dim, alpha):
        super(Affine, self).__init__()
        self.dim = dim
        self.alpha = alpha

    def calc_params(self, params):
        mu, log_scale = params.chunk(2, dim=self.dim)
        scale = log_scale.mul(0.5).tanh().mul(self.alpha).add(1.0)
        return mu, scale

    @staticmethod
    def fwd(z: torch.Tensor, params) -> Tuple[torch.Tensor, torch.Tensor]:
        mu, scale = params
        z = scale * z + mu
        logdet = scale.log().view(z.size(0), -1).sum(dim=1)
        return z, logdet

    @staticmethod
    def bwd(z: torch.Tensor, params) -> Tuple[torch.Tensor, torch.Tensor]:
        mu, scale = params
        z = (z - mu).div(scale + 1e-12)
        logdet = scale.log().view(z.size(0), -1).sum(dim=1) * -1.0
        return z, logdet

    def extra_repr(self):
        return 'dim={}, alpha={}'.format(self.dim, self.alpha)


class NICE1d(Flow):
    """
    NICE Flow for 1D data
    """
    def __init__(self, in_features, hidden_features=None, inverse=False, split_type='continuous',
                 order='up', transform='affine', alpha=1.0, type='mlp', activation='elu'):
        super(NICE1d, self).__init__(inverse)
        self.in_features = in_features
        self.factor = 2
        assert split_type in ['continuous', 'skip']
        assert in_features % self.factor == 0
        assert order in ['up', 'down']
        self.split_type = split_type
        self.up = order == 'up'

        if hidden_features is None:
            hidden_features = min(8 * in_features, 512)

        out_features = in_features // self.factor
        in_features = in_features - out_features
        self.z1_features = in_features if self.up else out_features

        assert transform in ['affine']
        self.transform = Affine(dim=-1, alpha=alpha)
        self.analytic_bwd = True
        out_features = out_features * 2

        assert type in ['mlp']
        if type == 'mlp':
            self.net = NICEMLPBlock(in_features, out_features, hidden_features, activation)

    def split(self, z):
        split_dim = z.dim() - 1
        dim = z.size(split_dim)
        return z.split([self.z1_features, dim - self.z1_features], dim=split_dim)

    def unsplit(self, z1, z2):
        split_dim = z1.dim() - 1
        return torch.cat([z1, z2], dim=split_dim)

    def calc_params(self, z: torch.Tensor):
        params = self.net(z)
        return params

    def forward(self, input: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        # [batch, length, in_channels]
        z1, z2 = self.split(input)
        # [batch, length, features]
        z, zp = (z1, z2) if self.up else (z2, z1)

        params = self.transform.calc_params(self.calc_params(z))
        zp, logdet = self.transform.fwd(zp, params)

        z1, z2 = (z, zp) if self.up else (zp, z)
        return self.unsplit(z1, z2), logdet


if __name__ == '__main__':
    flow = NICE1d(8, hidden_features=16)
    optimizer = torch.optim.Adam(flow.parameters(), lr=1e-3)
    data = torch.randn(4, 8)
    out, logdet = flow.fwdpass(data)
    nll = 0.5 * out.pow(2).sum(dim=1) - logdet
    optimizer.zero_grad()
    nll.mean().backward()
    optimizer.step()
