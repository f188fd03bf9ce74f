# In-place dropout of a ReLU built from a module-level dict of layer classes
# (facebookresearch/3detr#55: `ACTIVATION_DICT[activation]()` in the encoder layer).
import torch
import torch.nn as nn

ACTIVATION_DICT = {
    "relu": nn.ReLU,
    "gelu": nn.GELU,
}


class EncoderLayer(nn.Module):
    def __init__(self, d_model, activation="relu"):
        super().__init__()
        self.linear1 = nn.Linear(d_model, 2 * d_model)
        self.dropout = nn.Dropout(0.1, inplace=True)
        self.linear2 = nn.Linear(2 * d_model, d_model)
        self.activation = ACTIVATION_DICT[activation]()

    def forward(self, src):
        return self.linear2(self.dropout(self.activation(self.linear1(src))))  # expect: GL103


EncoderLayer(8)(torch.randn(4, 8)).sum().backward()
