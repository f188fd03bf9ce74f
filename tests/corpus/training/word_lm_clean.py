# torch: ok
# word_language_model-style truncated BPTT: the hidden state is repackaged (detached)
# every batch, gradients are clipped, and parameters are updated by hand under no_grad.
import torch
import torch.nn as nn


class RNNModel(nn.Module):
    def __init__(self, ntoken, ninp, nhid):
        super().__init__()
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnn = nn.LSTM(ninp, nhid)
        self.decoder = nn.Linear(nhid, ntoken)
        self.nhid = nhid

    def forward(self, input, hidden):
        emb = self.encoder(input)
        output, hidden = self.rnn(emb, hidden)
        decoded = self.decoder(output)
        return decoded.view(-1, decoded.size(-1)), hidden

    def init_hidden(self, bsz):
        weight = next(self.parameters())
        return (weight.new_zeros(1, bsz, self.nhid), weight.new_zeros(1, bsz, self.nhid))


def repackage_hidden(h):
    if isinstance(h, torch.Tensor):
        return h.detach()
    return tuple(repackage_hidden(v) for v in h)


ntokens, lr, clip = 20, 0.5, 0.25
model = RNNModel(ntokens, 8, 8)
criterion = nn.NLLLoss()
train_data = torch.randint(0, ntokens, (12, 2))


def train():
    model.train()
    hidden = model.init_hidden(2)
    for i in range(0, train_data.size(0) - 3, 3):
        data, targets = train_data[i : i + 3], train_data[i + 1 : i + 4].reshape(-1)
        model.zero_grad()
        hidden = repackage_hidden(hidden)
        output, hidden = model(data, hidden)
        loss = criterion(torch.log_softmax(output, -1), targets)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
        for p in model.parameters():
            p.data.add_(p.grad, alpha=-lr)


train()
