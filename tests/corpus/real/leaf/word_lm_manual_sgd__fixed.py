# source: https://github.com/pytorch/examples/pull/779
# expect: clean
import argparse

import torch
import torch.nn as nn

parser = argparse.ArgumentParser(description="PyTorch RNN/LSTM Language Model")
parser.add_argument("--lr", type=float, default=20)
parser.add_argument("--clip", type=float, default=0.25)
parser.add_argument("--bptt", type=int, default=5)
args = parser.parse_args([])


class RNNModel(nn.Module):
    def __init__(self, ntoken, ninp, nhid):
        super().__init__()
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnn = nn.LSTM(ninp, nhid)
        self.decoder = nn.Linear(nhid, ntoken)

    def forward(self, input, hidden):
        emb = self.encoder(input)
        output, hidden = self.rnn(emb, hidden)
        return self.decoder(output), hidden

    def init_hidden(self, bsz):
        return (torch.zeros(1, bsz, 8), torch.zeros(1, bsz, 8))


ntokens = 20
model = RNNModel(ntokens, 6, 8)
criterion = nn.CrossEntropyLoss()
train_data = torch.randint(0, ntokens, (16, 2))


def train():
    model.train()
    hidden = model.init_hidden(2)
    for i in range(0, train_data.size(0) - 1 - args.bptt, args.bptt):
        data = train_data[i : i + args.bptt]
        targets = train_data[i + 1 : i + 1 + args.bptt].reshape(-1)
        hidden = tuple(h.detach() for h in hidden)
        model.zero_grad()
        output, hidden = model(data, hidden)
        loss = criterion(output.view(-1, ntokens), targets)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), args.clip)
        for p in model.parameters():
            p.data.add_(p.grad, alpha=-args.lr)


train()
