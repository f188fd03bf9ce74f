# The same dynamic-weights head, but the first weight is scaled in place after the list
# of splits was sliced: the slice holds the views `split_with_sizes` returned, and torch
# forbids editing one of several views a single op returned.
import torch
import torch.nn as nn


class DynamicPointHead(nn.Module):
    def __init__(self, channels=8, in_channels=4, num_layers=3):
        super().__init__()
        self.channels = channels
        self.num_layers = num_layers
        self.num_weights = [in_channels * channels, channels * channels, channels]
        self.num_biases = [channels, channels, 1]
        self.params = nn.Linear(16, sum(self.num_weights) + sum(self.num_biases))

    def forward(self, features):
        sizes = self.num_weights + self.num_biases
        params_splits = list(torch.split_with_sizes(self.params(features), sizes, dim=1))
        weight_splits = params_splits[: self.num_layers]
        weight_splits[0].mul_(self.channels**-0.5)  # expect: GL103
        return sum(w.sum() for w in weight_splits)


head = DynamicPointHead()
head(torch.randn(2, 16)).backward()
