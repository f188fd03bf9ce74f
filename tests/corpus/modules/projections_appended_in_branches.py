# torch: AssertionError: the input projections are missing from parameters()
# Shape of transformers' OneFormerTransformerModule: each level appends a 1x1 conv or an
# empty nn.Sequential to a plain list, depending on the config: the convs never register.
import torch.nn as nn


class TransformerModule(nn.Module):
    def __init__(self, in_features, hidden_dim, enforce_input_proj=False):
        super().__init__()
        self.num_feature_levels = 3
        self.queries_embedder = nn.Embedding(10, hidden_dim)
        self.input_projections = []

        for _ in range(self.num_feature_levels):
            if in_features != hidden_dim or enforce_input_proj:
                self.input_projections.append(nn.Conv2d(in_features, hidden_dim, kernel_size=1))  # expect: GL502
            else:
                self.input_projections.append(nn.Sequential())

    def forward(self, multi_scale_features):
        return [self.input_projections[i](f) for i, f in enumerate(multi_scale_features)]


module = TransformerModule(8, 16)
if len(list(module.parameters())) == 1:
    raise AssertionError("the input projections are missing from parameters()")
