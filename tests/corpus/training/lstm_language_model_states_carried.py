# torch: raises Trying to backward through the graph a second time
# A word-level language model trained on consecutive chunks of one long sequence, in the
# shape of yunjey/pytorch-tutorial's language model (issue #90 asks why the states are
# detached): without `states = detach(states)`, the (h, c) the LSTM returned for the
# previous chunk still carry that chunk's graph, which its backward already freed.
# https://github.com/yunjey/pytorch-tutorial/issues/90
import torch
import torch.nn as nn


class RNNLM(nn.Module):
    def __init__(self, vocab_size=20, embed_size=8, hidden_size=16, num_layers=1):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, embed_size)
        self.lstm = nn.LSTM(embed_size, hidden_size, num_layers, batch_first=True)
        self.linear = nn.Linear(hidden_size, vocab_size)

    def forward(self, x, h):
        out, (h, c) = self.lstm(self.embed(x), h)
        out = out.reshape(out.size(0) * out.size(1), out.size(2))
        return self.linear(out), (h, c)


model = RNNLM()
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=0.002)
ids = torch.randint(0, 20, (4, 31))
seq_length = 10
states = (torch.zeros(1, 4, 16), torch.zeros(1, 4, 16))
for i in range(0, ids.size(1) - seq_length, seq_length):
    inputs = ids[:, i : i + seq_length]
    targets = ids[:, (i + 1) : (i + 1) + seq_length]
    outputs, states = model(inputs, states)
    loss = criterion(outputs, targets.reshape(-1))
    model.zero_grad()
    loss.backward()  # expect: GL305
    optimizer.step()
