# source: https://github.com/Skype-line/X-Avatar/issues/12
# expect: clean
# mechanism: the occupancy comes out of torch.split (a multi-view op) and a reshape that stays a view; masked_softmax's 'min' arm writes into it with vec[~mask] = 1
import torch
import torch.nn as nn


def masked_softmax(vec, mask, dim=-1, mode="softmax", soft_blend=1):
    if mode == "softmax":
        vec = torch.distributions.Bernoulli(logits=vec).probs
        masked_exps = torch.exp(soft_blend * vec) * mask.float()
        masked_exps_sum = masked_exps.sum(dim)
        output = torch.zeros_like(vec)
        output[masked_exps_sum > 0, :] = masked_exps[masked_exps_sum > 0, :] / masked_exps_sum[masked_exps_sum > 0].unsqueeze(-1)
        output = (output * vec).sum(dim, keepdim=True)
        value = torch.distributions.Bernoulli(probs=output).logits
        index = None
    elif mode == "max":
        vec[~mask.bool()] = -100
        value, index = torch.max(vec, dim, keepdim=True)
    elif mode == "min":
        vec = vec.masked_fill(~mask.bool(), 1)
        value, index = torch.min(vec, dim, keepdim=True)
    else:
        raise NotImplementedError
    return value, index


class ImplicitNetwork(nn.Module):
    def __init__(self, d_in=3, d_out=1, feature_size=4):
        super().__init__()
        self.feature_size = feature_size
        self.lin = nn.Linear(d_in, d_out + feature_size)

    def forward(self, x):
        return self.lin(x)


class XAvatarModel(nn.Module):
    def __init__(self, opt):
        super().__init__()
        self.opt = opt
        self.shape_network = ImplicitNetwork(feature_size=opt["feature_size"])

    def forward(self, pts_d, mask):
        n_batch, n_point, n_init, _ = pts_d.shape
        output = self.shape_network(pts_d.reshape(n_batch, -1, 3))
        occ, feat = torch.split(output, [1, self.opt["feature_size"]], dim=-1)
        shape_pd = occ.reshape(n_batch, n_point, n_init)
        shape_pd, index = masked_softmax(shape_pd, mask, dim=-1, mode=self.opt["softmax_mode"])
        return shape_pd, index


opt = {"feature_size": 4, "softmax_mode": "min"}
model = XAvatarModel(opt)
pts_d = torch.randn(2, 5, 3, 3)
mask = torch.rand(2, 5, 3) > 0.3
shape_pd, index = model(pts_d, mask)
loss = shape_pd.abs().mean()
loss.backward()
