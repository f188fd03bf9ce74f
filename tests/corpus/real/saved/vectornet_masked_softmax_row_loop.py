# source: https://github.com/xk-huang/yet-another-vectornet/issues/34
# expect: is a view and is being modified inplace
# buggy-line: 22
# mechanism: iterating a grad-requiring tensor yields views from unbind; masked_softmax writes -1e6 into each row
import torch
import torch.nn as nn
import torch.nn.functional as F


def masked_softmax(X, valid_len):
    """masked softmax for attention scores"""
    if valid_len is None:
        return nn.functional.softmax(X, dim=-1)
    else:
        shape = X.shape
        if valid_len.dim() == 1:
            valid_len = torch.repeat_interleave(valid_len, repeats=shape[1], dim=0)
        else:
            valid_len = valid_len.reshape(-1)
        X = X.reshape(-1, shape[-1])
        for count, row in enumerate(X):
            row[int(valid_len[count]) :] = -1e6
        return nn.functional.softmax(X.reshape(shape), dim=-1)


class SelfAttentionLayer(nn.Module):
    def __init__(self, in_channels, global_graph_width):
        super().__init__()
        self.q_lin = nn.Linear(in_channels, global_graph_width)
        self.k_lin = nn.Linear(in_channels, global_graph_width)
        self.v_lin = nn.Linear(in_channels, global_graph_width)

    def forward(self, x, valid_len):
        query = self.q_lin(x)
        key = self.k_lin(x)
        value = self.v_lin(x)
        scores = torch.bmm(query, key.transpose(1, 2))
        attention_weights = masked_softmax(scores, valid_len)
        return torch.bmm(attention_weights, value)


class HGNN(nn.Module):
    def __init__(self, in_channels=6, global_graph_width=8, out_channels=4):
        super().__init__()
        self.self_atten_layer = SelfAttentionLayer(in_channels, global_graph_width)
        self.traj_pred_mlp = nn.Linear(global_graph_width, out_channels)

    def forward(self, data):
        x, valid_lens = data["x"], data["valid_lens"]
        out = self.self_atten_layer(x, valid_lens)
        return self.traj_pred_mlp(out[:, 0])


model = HGNN()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
data = {"x": torch.randn(2, 5, 6), "valid_lens": torch.tensor([3, 5]), "y": torch.randn(2, 4)}
optimizer.zero_grad()
out = model(data)
loss = F.mse_loss(out, data["y"])
loss.backward()
optimizer.step()
