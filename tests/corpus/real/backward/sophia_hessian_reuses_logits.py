# source: https://github.com/Liuhong99/Sophia/issues/1
# expect: Trying to backward through the graph a second time
# buggy-line: 39
import torch
import torch.nn as nn
import torch.nn.functional as F

vocab, d, bs, T = 11, 8, 2, 5


class TinyLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.proj = nn.Linear(d, vocab)

    def forward(self, idx):
        return self.proj(torch.tanh(self.emb(idx)))


model = TinyLM()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
hess_interval = 2

for iter_num in range(1, 3):
    X = torch.randint(0, vocab, (bs, T))
    Y = torch.randint(0, vocab, (bs, T))
    logits = model(X)
    loss = F.cross_entropy(logits.view(-1, vocab), Y.view(-1))
    loss.backward()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)

    if iter_num % hess_interval == hess_interval - 1:
        # estimate the diagonal Hessian with labels sampled from the model
        samp_dist = torch.distributions.Categorical(logits=logits)
        y_sample = samp_dist.sample()
        loss_sampled = F.cross_entropy(logits.view(-1, vocab), y_sample.view(-1))
        loss_sampled.backward()
        optimizer.zero_grad(set_to_none=True)
