# source: https://github.com/hy-struggle/PRGC/issues/16
# expect: grad can be implicitly created only for scalar outputs
# buggy-line: 39
# mechanism: a vector of per-replica losses: `torch.stack([model(*c) for c in zip(*(x.chunk(2) for x in inputs))])` has 2 rows; needs the item count of `chunk(n)` with a literal n carried through `zip(*generator)` into the comprehension, so `loss.backward()` is on a non-scalar
import torch
import torch.nn as nn
import torch.nn.functional as F

N_GPU = 2  # args.n_gpu; DataParallel gathers one loss per replica into a vector


class PRGCHead(nn.Module):
    def __init__(self, hidden=12, n_rel=4):
        super().__init__()
        self.rel_judgement = nn.Linear(hidden, n_rel)
        self.seq_tag = nn.Linear(hidden, 3)

    def forward(self, hidden, rel_labels, tags):
        rel_logits = self.rel_judgement(hidden.mean(dim=1))
        tag_logits = self.seq_tag(hidden)
        loss_rel = F.binary_cross_entropy_with_logits(rel_logits, rel_labels)
        loss_seq = F.cross_entropy(tag_logits.reshape(-1, 3), tags.reshape(-1))
        return loss_rel + loss_seq


def data_parallel(model, *inputs, n_replicas=N_GPU):
    # what nn.DataParallel does on n GPUs: scatter, run, gather the 0-d losses
    chunks = zip(*(x.chunk(n_replicas) for x in inputs))
    return torch.stack([model(*c) for c in chunks])


def train(model, optimizer, steps=2):
    for step in range(steps):
        hidden = torch.randn(4, 5, 12)
        rel_labels = torch.randint(0, 2, (4, 4)).float()
        tags = torch.randint(0, 3, (4, 5))
        loss = data_parallel(model, hidden, rel_labels, tags)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


model = PRGCHead()
train(model, torch.optim.Adam(model.parameters(), lr=1e-3))
