# source: https://github.com/OpenHelix-Team/OpenHelix/issues/2
# expect: silent: `requiers_grad` on a slice of the embedding sets a new attribute of a temporary view: the new token rows stay frozen
# buggy-line: 28
import torch
import torch.nn as nn

VOCAB, NEW_TOKENS = 12, 3


class VLA(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed_tokens = nn.Embedding(VOCAB + NEW_TOKENS, 6)
        self.text_hidden_fcs = nn.Linear(6, 6)
        self.pred_act_mlps = nn.Linear(6, 2)

    def forward(self, ids):
        return self.pred_act_mlps(torch.relu(self.text_hidden_fcs(self.embed_tokens(ids).mean(1))))


model = VLA()
for p in model.parameters():
    p.requires_grad = False
for n, p in model.named_parameters():
    if any(x in n for x in ["text_hidden_fcs", "pred_act_mlps"]):
        p.requires_grad = True
    if "embed_tokens.weight" in n:
        p[VOCAB:].requiers_grad = True

optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-3)
ids = torch.tensor([[1, 12, 13], [2, 14, 3]])  # uses the new action tokens
loss = model(ids).pow(2).mean()
optimizer.zero_grad()
loss.backward()
optimizer.step()
assert model.embed_tokens.weight.grad is None
