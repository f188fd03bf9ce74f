# source: https://github.com/automan000/Convolutional_LSTM_PyTorch/issues/17
# expect: clean
import torch
import torch.nn as nn
from torch.autograd import Variable


class ConvLSTMCell(nn.Module):
    def __init__(self, input_channels, hidden_channels, kernel_size):
        super(ConvLSTMCell, self).__init__()
        self.input_channels = input_channels
        self.hidden_channels = hidden_channels
        self.kernel_size = kernel_size
        self.padding = int((kernel_size - 1) / 2)
        self.Wxi = nn.Conv2d(self.input_channels, self.hidden_channels, self.kernel_size, 1, self.padding, bias=True)
        self.Whi = nn.Conv2d(self.hidden_channels, self.hidden_channels, self.kernel_size, 1, self.padding, bias=False)
        self.Wxc = nn.Conv2d(self.input_channels, self.hidden_channels, self.kernel_size, 1, self.padding, bias=True)
        self.Whc = nn.Conv2d(self.hidden_channels, self.hidden_channels, self.kernel_size, 1, self.padding, bias=False)
        self.Wci = None
        self.Wcf = None
        self.Wco = None

    def forward(self, x, h, c):
        ci = torch.sigmoid(self.Wxi(x) + self.Whi(h) + c * self.Wci)
        cf = torch.sigmoid(self.Wxi(x) + self.Whi(h) + c * self.Wcf)
        cc = cf * c + ci * torch.tanh(self.Wxc(x) + self.Whc(h))
        co = torch.sigmoid(self.Wxi(x) + self.Whi(h) + cc * self.Wco)
        ch = co * torch.tanh(cc)
        return ch, cc

    def init_hidden(self, batch_size, hidden, shape):
        if self.Wci is None:
            self.Wci = nn.Parameter(torch.zeros(1, hidden, shape[0], shape[1]))
            self.Wcf = nn.Parameter(torch.zeros(1, hidden, shape[0], shape[1]))
            self.Wco = nn.Parameter(torch.zeros(1, hidden, shape[0], shape[1]))
        return (
            Variable(torch.zeros(batch_size, hidden, shape[0], shape[1])),
            Variable(torch.zeros(batch_size, hidden, shape[0], shape[1])),
        )


class ConvLSTM(nn.Module):
    def __init__(self, input_channels, hidden_channels, kernel_size, step=2):
        super(ConvLSTM, self).__init__()
        self.cell = ConvLSTMCell(input_channels, hidden_channels, kernel_size)
        self.hidden_channels = hidden_channels
        self.step = step

    def forward(self, input):
        bsize, _, height, width = input.size()
        h, c = self.cell.init_hidden(bsize, self.hidden_channels, (height, width))
        for step in range(self.step):
            h, c = self.cell(input, h, c)
        return h


convlstm = ConvLSTM(input_channels=2, hidden_channels=4, kernel_size=3)
convlstm.cell.init_hidden(1, 4, (6, 6))
optimizer = torch.optim.Adam(convlstm.parameters(), lr=1e-2)
for _ in range(2):
    optimizer.zero_grad()
    output = convlstm(torch.randn(1, 2, 6, 6))
    loss = (output - torch.ones_like(output)).pow(2).mean()
    loss.backward()
    optimizer.step()
assert torch.count_nonzero(convlstm.cell.Wci) > 0
