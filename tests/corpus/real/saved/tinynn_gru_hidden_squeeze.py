# source: https://github.com/alibaba/TinyNeuralNetwork/issues/238
# expect: is a view and is being modified inplace
# buggy-line: 24
# mechanism: `squeeze_(0)` on each piece of `hx.split(1)` (multi-output views) of a hidden state that requires grad, in a list comprehension inside a GRU forward
import torch
import torch.nn as nn


class GRU(nn.Module):
    def __init__(self, input_size, hidden_size, num_layers=1):
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.cells = nn.ModuleList(
            [nn.GRUCell(input_size if i == 0 else hidden_size, hidden_size) for i in range(num_layers)]
        )

    def forward(self, input, hx=None):
        seq_len, batch, _ = input.shape
        if hx is None:
            hx = input.new_zeros(self.num_layers, batch, self.hidden_size)
        hx = hx.split(1, dim=0)
        hx = [(hx[idx].squeeze_(0)) for idx in range(self.num_layers)]
        outputs = []
        for step in range(seq_len):
            x = input[step]
            new_hx = []
            for idx, cell in enumerate(self.cells):
                x = cell(x, hx[idx])
                new_hx.append(x)
            hx = new_hx
            outputs.append(x)
        return torch.stack(outputs), torch.stack(hx)


class CrnnKwsModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(4, 6, 3, padding=1)
        self.init_hidden = nn.Linear(6, 2 * 5)
        self.kws_predictor_rnn = GRU(6, 5, num_layers=2)
        self.fc = nn.Linear(5, 3)

    def forward(self, x):
        feats = self.conv(x)
        reshape_0_f = feats.permute(2, 0, 1)
        fake_quant_2 = self.init_hidden(feats.mean(-1)).view(-1, 2, 5).transpose(0, 1)
        kws_predictor_rnn, _ = self.kws_predictor_rnn(reshape_0_f, fake_quant_2)
        return self.fc(kws_predictor_rnn[-1])


model = CrnnKwsModel()
out = model(torch.randn(2, 4, 7))
out.sum().backward()
