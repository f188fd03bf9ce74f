# source: https://github.com/fengxinjie/Transformer-OCR/issues/7
# expect: silent: SimpleLossCompute calls loss.backward() also for the test loss (opt None): the validation gradients stay in .grad and the next training step applies them
# buggy-line: 71
import time

import torch
import torch.nn as nn
from torch.autograd import Variable


class NoamOpt:
    "Optim wrapper that implements rate."

    def __init__(self, model_size, factor, warmup, optimizer):
        self.optimizer = optimizer
        self._step = 0
        self.warmup = warmup
        self.factor = factor
        self.model_size = model_size
        self._rate = 0

    def step(self):
        "Update parameters and rate"
        self._step += 1
        rate = self.rate()
        for p in self.optimizer.param_groups:
            p["lr"] = rate
        self._rate = rate
        self.optimizer.step()

    def rate(self, step=None):
        "Implement `lrate` above"
        if step is None:
            step = self._step
        return self.factor * (self.model_size ** (-0.5) * min(step ** (-0.5), step * self.warmup ** (-1.5)))


class LabelSmoothing(nn.Module):
    "Implement label smoothing."

    def __init__(self, size, padding_idx=0, smoothing=0.0):
        super(LabelSmoothing, self).__init__()
        self.criterion = nn.KLDivLoss(reduction="sum")
        self.padding_idx = padding_idx
        self.confidence = 1.0 - smoothing
        self.smoothing = smoothing
        self.size = size
        self.true_dist = None

    def forward(self, x, target):
        assert x.size(1) == self.size
        true_dist = x.data.clone()
        true_dist.fill_(self.smoothing / (self.size - 2))
        true_dist.scatter_(1, target.data.unsqueeze(1), self.confidence)
        true_dist[:, self.padding_idx] = 0
        self.true_dist = true_dist
        return self.criterion(x, Variable(true_dist, requires_grad=False))


class SimpleLossCompute:
    "A simple loss compute and train function."

    def __init__(self, generator, criterion, opt=None):
        self.generator = generator
        self.criterion = criterion
        self.opt = opt

    def __call__(self, x, y, norm):
        x = self.generator(x)
        loss = self.criterion(x.contiguous().view(-1, x.size(-1)), y.contiguous().view(-1)) / norm
        loss.backward()
        if self.opt is not None:
            self.opt.step()
            self.opt.optimizer.zero_grad()
        return loss.data * norm


class OCRModel(nn.Module):
    """stands for make_model(): an encoder over image columns and a generator"""

    def __init__(self, vocab, d_model=16):
        super().__init__()
        self.d_model = d_model
        self.encoder = nn.Linear(8, d_model)
        self.generator = nn.Sequential(nn.Linear(d_model, vocab), nn.LogSoftmax(dim=-1))

    def forward(self, imgs):
        return torch.relu(self.encoder(imgs))


def run_epoch(dataloader, model, loss_compute):
    "Standard Training and Logging Function"
    start = time.time()
    total_tokens = 0
    total_loss = 0
    for i, (imgs, labels_y) in enumerate(dataloader):
        out = model(imgs)
        ntokens = labels_y.numel()
        loss = loss_compute(out, labels_y, ntokens)
        total_loss += loss
        total_tokens += ntokens
    return total_loss / total_tokens


vocab = 6
model = OCRModel(vocab)
criterion = LabelSmoothing(size=vocab, padding_idx=0, smoothing=0.1)
model_opt = NoamOpt(model.d_model, 1, 2000, torch.optim.Adam(model.parameters(), lr=0, betas=(0.9, 0.98), eps=1e-9))
train_dataloader = [(torch.randn(2, 5, 8), torch.randint(1, vocab, (2, 5))) for _ in range(2)]
val_dataloader = [(torch.randn(2, 5, 8), torch.randint(1, vocab, (2, 5)))]
for epoch in range(1):
    model.train()
    run_epoch(train_dataloader, model, SimpleLossCompute(model.generator, criterion, model_opt))
    model.eval()
    test_loss = run_epoch(val_dataloader, model, SimpleLossCompute(model.generator, criterion, None))
    print("test_loss", test_loss)
# the effect: the test loss left its gradients in .grad for the next training step to apply
assert model.encoder.weight.grad.abs().sum() > 0
