# A dynamic-weights head in the shape of detectron2's PointRend `_parse_params`: the
# predicted parameters are split, the list of splits sliced into weights and biases,
# and each list item rebound to a reshaped copy. `weight_splits[l] = ...` stores into a
# Python list: no tensor is edited, autograd has nothing to object to.
import torch
import torch.nn as nn


class DynamicPointHead(nn.Module):
    def __init__(self, channels=8, in_channels=4, num_layers=3):
        super().__init__()
        self.channels = channels
        self.in_channels = in_channels
        self.num_layers = num_layers
        self.num_weights = [in_channels * channels, channels * channels, channels]
        self.num_biases = [channels, channels, 1]
        self.params = nn.Linear(16, sum(self.num_weights) + sum(self.num_biases))

    def _parse_params(self, pred_params):
        num_insts = pred_params.size(0)
        sizes = self.num_weights + self.num_biases
        params_splits = list(torch.split_with_sizes(pred_params, sizes, dim=1))
        weight_splits = params_splits[: self.num_layers]
        bias_splits = params_splits[self.num_layers :]
        for layer in range(self.num_layers):
            if layer == 0:
                weight_splits[layer] = weight_splits[layer].reshape(num_insts, self.channels, -1)
                bias_splits[layer] = bias_splits[layer].reshape(num_insts, self.channels, 1)
            else:
                weight_splits[layer] = weight_splits[layer].reshape(num_insts, -1, self.channels)
                bias_splits[layer] = bias_splits[layer].reshape(num_insts, -1, 1)
        return weight_splits, bias_splits

    def forward(self, features, points):
        weights, biases = self._parse_params(self.params(features))
        x = points
        for weight, bias in zip(weights, biases):
            x = torch.relu(torch.bmm(weight, x) + bias)
        return x


head = DynamicPointHead()
head(torch.randn(2, 16), torch.randn(2, 4, 5)).sum().backward()
