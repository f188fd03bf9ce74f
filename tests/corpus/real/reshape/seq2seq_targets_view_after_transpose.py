# source: https://github.com/yusugomori/deeplearning-keras-tf2-torch/pull/1
# expect: view size is not compatible with input tensor's size and stride
# buggy-line: 37
# mechanism: the targets are transposed to (seq_len, batch) for the decoder; compute_loss is given t.view(-1), a view merging the swapped dims
import torch
import torch.nn as nn
import torch.optim as optimizers


class EncoderDecoder(nn.Module):
    def __init__(self, input_dim, hidden_dim, output_dim):
        super().__init__()
        self.embedding = nn.Embedding(input_dim, hidden_dim)
        self.encoder = nn.LSTM(hidden_dim, hidden_dim)
        self.out_embedding = nn.Embedding(output_dim, hidden_dim)
        self.decoder = nn.LSTM(hidden_dim, hidden_dim)
        self.out = nn.Linear(hidden_dim, output_dim)

    def forward(self, source, target):
        _, states = self.encoder(self.embedding(source))
        h, _ = self.decoder(self.out_embedding(target), states)
        return self.out(h)


model = EncoderDecoder(20, 16, 20)
criterion = nn.CrossEntropyLoss(reduction='mean')
optimizer = optimizers.Adam(model.parameters(), lr=0.001)


def compute_loss(t, y):
    return criterion(y, t)


def train_step(x, t):
    model.train()
    preds = model(x, t)
    loss = compute_loss(t.view(-1),
                        preds.view(-1, preds.size(-1)))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return loss, preds


train_dataloader = [(torch.randint(0, 20, (4, 7)), torch.randint(0, 20, (4, 9))) for _ in range(2)]
for epoch in range(1):
    for (x, t) in train_dataloader:
        x, t = x.t(), t.t()
        loss, _ = train_step(x, t)
