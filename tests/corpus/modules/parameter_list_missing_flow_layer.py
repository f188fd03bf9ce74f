# torch: AssertionError: a parameter of self.flows is not registered
# rtqichen/ffjord vae_lib/models/flows.py (IAF): the twin of parameter_list_of_flows_layers_ok:
# linear_std's parameters are not drawn into the list nn.ParameterList registers, so the
# plain list of tuples is the only place they are kept: the optimizer never sees them.
import torch
import torch.nn as nn


class MaskedLinear(nn.Module):
    def __init__(self, in_features, out_features, diagonal_zeros=False, bias=True):
        super(MaskedLinear, self).__init__()
        self.weight = nn.Parameter(torch.randn(in_features, out_features))
        if bias:
            self.bias = nn.Parameter(torch.zeros(out_features))
        else:
            self.register_parameter("bias", None)
        self.mask = torch.ones(in_features, out_features)

    def forward(self, x):
        out = x @ (self.weight * self.mask)
        return out + self.bias if self.bias is not None else out


class IAF(nn.Module):
    def __init__(self, z_size, num_flows=2, num_hidden=0, h_size=50):
        super(IAF, self).__init__()
        ar_layer = MaskedLinear
        self.activation = torch.nn.ELU
        self.flows = []
        self.param_list = []
        for k in range(num_flows):
            arch_z = [ar_layer(z_size, h_size), self.activation()]
            self.param_list += list(arch_z[0].parameters())
            z_feats = torch.nn.Sequential(*arch_z)
            arch_zh = []
            for j in range(num_hidden):
                arch_zh += [ar_layer(h_size, h_size), self.activation()]
                self.param_list += list(arch_zh[-2].parameters())
            zh_feats = torch.nn.Sequential(*arch_zh)
            linear_mean = ar_layer(h_size, z_size, diagonal_zeros=True)
            linear_std = ar_layer(h_size, z_size, diagonal_zeros=True)
            self.param_list += list(linear_mean.parameters())
            self.flows.append((z_feats, zh_feats, linear_mean, linear_std))  # expect: GL502
        self.param_list = torch.nn.ParameterList(self.param_list)

    def forward(self, z, h_context):
        for i, flow in enumerate(self.flows):
            h = flow[0](z)
            h = flow[1](h + h_context)
            z = torch.sigmoid(flow[3](h)) * z + flow[2](h)
        return z


m = IAF(4, num_hidden=1, h_size=6)
owned = {id(p) for p in m.parameters()}
held = [p for flow in m.flows for layer in flow for p in layer.parameters()]
assert all(id(p) in owned for p in held), "a parameter of self.flows is not registered"
