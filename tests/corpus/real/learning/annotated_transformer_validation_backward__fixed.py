# source: https://github.com/harvardnlp/annotated-transformer/issues/14
# expect: clean
import copy

import torch
import torch.nn as nn


class SimpleLossCompute:
    "A simple loss compute and train function."

    def __init__(self, generator, criterion, opt=None):
        self.generator = generator
        self.criterion = criterion
        self.opt = opt

    def __call__(self, x, y, norm):
        x = self.generator(x)
        loss = self.criterion(x.contiguous().view(-1, x.size(-1)), y.contiguous().view(-1)) / norm
        if self.opt is not None:
            loss.backward()
            self.opt.step()
            self.opt.zero_grad()
        return loss.item() * norm


def run_epoch(data_iter, model, loss_compute):
    "Standard Training and Logging Function"
    total_loss = 0
    total_tokens = 0
    for i, batch in enumerate(data_iter):
        out = model(batch["src"])
        loss = loss_compute(out, batch["trg_y"], batch["ntokens"])
        total_loss += loss
        total_tokens += batch["ntokens"]
    return total_loss / total_tokens


def make_batches(n):
    return [{"src": torch.randn(2, 3, 6), "trg_y": torch.randint(0, 5, (2, 3)), "ntokens": 6} for _ in range(n)]


torch.manual_seed(0)
model = nn.Linear(6, 8)
generator = nn.Linear(8, 5)
start = copy.deepcopy((model.state_dict(), generator.state_dict()))
criterion = nn.CrossEntropyLoss(reduction="sum")
params = list(model.parameters()) + list(generator.parameters())
opt = torch.optim.SGD(params, lr=0.1)
train_data, valid_data = make_batches(2), make_batches(2)
run_epoch(train_data, model, SimpleLossCompute(generator, criterion, opt))
model.eval()
with torch.no_grad():
    run_epoch(valid_data, model, SimpleLossCompute(generator, criterion, None))
model.train()
run_epoch(train_data, model, SimpleLossCompute(generator, criterion, opt))

