# source: https://github.com/pytorch/pytorch/issues/2769
# expect: Trying to backward through the graph a second time
# buggy-line: 41
# also-line: 26
# mechanism: forward stores the LSTM's new state on self.hidden and feeds it to the next batch without detaching it, so the next backward walks into the freed graph of the previous batch
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import Variable


class LSTM(nn.Module):
    def __init__(self, input_len=16, hidden_len=16, model_len=12, target_size=5, is_softmax=True):
        super(LSTM, self).__init__()
        self.hidden_len = hidden_len
        self.is_softmax = is_softmax
        self.lstm = nn.LSTM(input_len, hidden_len, batch_first=True)
        self.target_size = target_size
        self.hidden2class = nn.Linear(hidden_len, target_size)
        self.hidden = self.init_hidden()

    def init_hidden(self):
        return (Variable(torch.zeros(1, 1, self.hidden_len)), Variable(torch.zeros(1, 1, self.hidden_len)))

    def forward(self, x):
        lstm_out, self.hidden = self.lstm(x, self.hidden)
        cls_scores = self.hidden2class(lstm_out[:, -1, :]).view(-1, self.target_size)
        if self.is_softmax:
            cls_scores = F.log_softmax(cls_scores, dim=1)
        return cls_scores


def train(train_data, model, criterion, optimizer, epoch):
    model.train()
    for i, (input, target) in enumerate(train_data):
        input_var = torch.autograd.Variable(input)
        target_var = torch.autograd.Variable(target)
        output = model(input_var)
        loss = criterion(output, target_var)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


model = LSTM()
criterion = nn.NLLLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
train_data = [(torch.randn(1, 12, 16), torch.tensor([i % 5])) for i in range(3)]
for epoch in range(2):
    train(train_data, model, criterion, optimizer, epoch)
