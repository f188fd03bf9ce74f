# source: https://github.com/OpenHelix-Team/OpenHelix/issues/2
# expect: clean
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
        # requires_grad is per tensor: train the whole table, mask the old rows' gradient
        p.requires_grad = True
        row_mask = torch.zeros(VOCAB + NEW_TOKENS, 1)
        row_mask[VOCAB:] = 1
        p.register_hook(lambda g: g * row_mask)

optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-3)
ids = torch.tensor([[1, 12, 13], [2, 14, 3]])
loss = model(ids).pow(2).mean()
optimizer.zero_grad()
loss.backward()
optimizer.step()
assert model.embed_tokens.weight.grad[VOCAB:].abs().sum() > 0
assert model.embed_tokens.weight.grad[:VOCAB].abs().sum() == 0
