import torch
import torch.nn as nn


class LinearWeightNorm(nn.Module):
    """stands for wolf.nnet.weight_norm.LinearWeightNorm"""

    def __init__(self, in_features, out_features, bias=True):
        super(LinearWeightNorm, self).__init__()
        self.linear = nn.utils.parametrizations.weight_norm(nn.Linear(in_features, out_features, bias=bias))

    def forward(self, input):
        return self.linear(input)


class NICEMLPBlock(nn.Module):
    def __init__(self, in_features, out_features, hidden_features, activation):
        super(NICEMLPBlock, self).__init__()
        assert activation in ['relu', 'elu', 'leaky_relu']
        self.fc1 = nn.Linear(in_features, hidden_features, bias=True)
        self.fc2 = nn.Linear(hidden_features, hidden_features, bias=True)
        self.fc3 = LinearWeightNorm(hidden_features, out_features, bias=True)

        if activation == 'relu':
            self.activation = nn.ReLU(inplace=True)
        elif activation == 'elu':
            self.activation = nn.ELU(inplace=True)
        else:
            self.activation = nn.LeakyReLU(inplace=True, negative_slope=1e-1)
        self.reset_parameters()

    def reset_parameters(self):
        nn.init.constant_(self.fc1.bias, 0.0)
        nn.init.constant_(self.fc2.bias, 0.0)

    def forward(self, x):
        # fc1
        out = self.activation(self.fc1(x))
        # fc2
        out = self.activation(self.fc2(out))
        # fc3
        out = self.fc3(out)
        return out
