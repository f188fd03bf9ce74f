# source: https://github.com/pytorch/pytorch/issues/1339
# expect: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


class Tagger(nn.Module):
    def __init__(self, n_in=6, n_tags=4):
        super().__init__()
        self.fc = nn.Linear(n_in, n_tags)

    def forward(self, x):
        return self.fc(x)


class Scorer(nn.Module):
    def __init__(self, n_tags=4):
        super().__init__()
        self.emb = nn.Embedding(n_tags, 3)
        self.out = nn.Linear(3, 1)

    def forward(self, tag_probs):
        # expected embedding under the tag distribution: differentiable
        return self.out(tag_probs @ self.emb.weight).squeeze(-1)


first_model, second_model = Tagger(), Scorer()
x, target = torch.randn(5, 6), torch.randn(5)
y_p = F.softmax(first_model(x), dim=1)
loss = ((second_model(y_p) - target) ** 2).mean()
first_model.zero_grad()
second_model.zero_grad()
loss.backward()
assert first_model.fc.weight.grad is not None
