# source: https://github.com/karpathy/nanoGPT/blob/master/train.py
# expect: clean
import torch
import torch.nn as nn
import torch.nn.functional as F

gradient_accumulation_steps = 2
grad_clip = 1.0
vocab, block_size, batch_size = 11, 6, 2

model = nn.Sequential(nn.Embedding(vocab, 8), nn.Linear(8, vocab))
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)


def get_batch():
    x = torch.randint(0, vocab, (batch_size, block_size))
    return x, torch.roll(x, -1, 1)


X, Y = get_batch()
for iter_num in range(2):
    for micro_step in range(gradient_accumulation_steps):
        logits = model(X)
        loss = F.cross_entropy(logits.view(-1, vocab), Y.view(-1))
        loss = loss / gradient_accumulation_steps
        X, Y = get_batch()
        loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), grad_clip)
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    lossf = loss.item() * gradient_accumulation_steps
